import picomatch from 'picomatch';

/**
 * Line breaks in a name: picomatch's `**` and `*` are regular expressions whose `.` stops at them,
 * so `**\/.ssh/**` missed `.ssh/id\nx` and read_file returned the key. Matched as NUL, which no
 * pattern names and every wildcard takes.
 */
const LINE_BREAK = /[\n\r\u2028\u2029]/;
const LINE_BREAKS = /[\n\r\u2028\u2029]/g;

/** Characters that make a glob more than literal text (picomatch syntax, extglobs included). */
const META = /[*?[\]{}()!+@\\]/;

/**
 * The literal text every match of `pattern` must contain, or undefined when no such text can be
 * named safely (braces, classes, extglobs, escapes and negations change what is literal). A match
 * reproduces each literal run of a glob verbatim, so a path without it cannot match.
 */
export function requiredLiteral(pattern: string): string | undefined {
  if (/[[\]{}()\\]/.test(pattern) || pattern.startsWith('!')) return undefined;
  const runs = pattern
    .split('/')
    // picomatch drops `.` segments (a leading "./") and resolves `..`: their text is not required.
    .filter((segment) => segment !== '.' && segment !== '..')
    .flatMap((segment) => segment.split(/[*?!+@]+/))
    .filter((run) => run !== '' && !META.test(run));
  return runs.sort((a, b) => b.length - a.length)[0];
}

/**
 * Decides whether a root-relative (or absolute) POSIX path matches one of the denied patterns, and
 * which one (the first in order). The usual answer is "no": a pattern is tried only on paths that
 * contain its required literal text, and compiled the first time one does, so a process that checks
 * a few ordinary paths compiles none (picomatch's compile and one combined regular expression of
 * every pattern cost ~8 ms at every `toolgate exec`). `compileAll` compiles every pattern at once:
 * a bad pattern from the config then fails when it is loaded, not on some later path.
 */
export function denyMatcher(
  patterns: readonly string[],
  nocase: boolean,
  compileAll = false,
): { test: (posixPath: string) => string | undefined } {
  const options = { dot: true, nocase };
  const rules = patterns.map((pattern) => {
    const literal = requiredLiteral(pattern);
    return {
      pattern,
      // No required literal (say "**/*"): every path is tried.
      needle: literal === undefined ? undefined : nocase ? literal.toLowerCase() : literal,
      matches: compileAll ? picomatch(pattern, options) : undefined,
    };
  });
  return {
    test: (p) => {
      const subject = nocase ? p.toLowerCase() : p;
      for (const rule of rules) {
        if (rule.needle !== undefined && !subject.includes(rule.needle)) continue;
        rule.matches ??= picomatch(rule.pattern, options);
        if (rule.matches(LINE_BREAK.test(p) ? p.replace(LINE_BREAKS, '\u0000') : p)) return rule.pattern;
      }
      return undefined;
    },
  };
}
