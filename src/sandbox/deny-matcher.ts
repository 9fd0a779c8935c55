import picomatch from 'picomatch';

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
 * which one. The usual answer is "no": paths without any pattern's required literal text get it
 * from a substring test; only the rest meet the combined regular expression (whose lazy, look-ahead
 * heavy form costs microseconds per path — too much for a walk of thousands).
 */
export function denyMatcher(
  patterns: readonly string[],
  nocase: boolean,
): { test: (posixPath: string) => string | undefined; any: RegExp } {
  const options = { dot: true, nocase };
  const any = new RegExp(
    patterns.map((p) => `(?:${picomatch.makeRe(p, options).source})`).join('|'),
    nocase ? 'i' : '',
  );
  // Which pattern matched is asked only after the combined expression matched: compiled then.
  let matchers: { pattern: string; test: (p: string) => boolean }[] | undefined;
  const which = (p: string) => {
    matchers ??= patterns.map((pattern) => ({ pattern, test: picomatch(pattern, options) }));
    return matchers.find((m) => m.test(p))?.pattern;
  };
  const literals = patterns.map(requiredLiteral);
  // One pattern without a required literal (say "**/*") means every path needs the full test.
  const needles = literals.every((l) => l !== undefined)
    ? literals.map((l) => (nocase ? (l as string).toLowerCase() : (l as string)))
    : undefined;
  const full = (p: string) => (any.test(p) ? (which(p) ?? 'denied') : undefined);
  if (!needles || patterns.length === 0) return { test: full, any };
  return {
    any,
    test: (p) => {
      const subject = nocase ? p.toLowerCase() : p;
      for (const needle of needles) if (subject.includes(needle)) return full(p);
      return undefined;
    },
  };
}
