import path from 'node:path';
import picomatch from 'picomatch';
import * as z from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolError } from '../../core/tool-error.js';
import { openForRead, throughFd, throughFdForChild } from '../../sandbox/safe-fs.js';
import { confirmListed } from './confirm-listed.js';
import { GitignoreFilter } from './gitignore-filter.js';
import { globWithPruning } from './glob-prune.js';
import { ripgrepBinary } from './grep-ripgrep.js';
import { LINE_BREAK_IN_NAME } from './line-break-name.js';

const args = z.strictObject({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "src/**/*.ts" or "*.md", relative to path.'),
  path: z.string().min(1).default('.').describe('Directory to search from, relative to the workspace root.'),
  max_results: z.number().int().min(1).max(10_000).default(500).describe('Most paths to return.'),
  include_hidden: z
    .boolean()
    .default(false)
    .describe('Match files and directories whose names start with a dot.'),
});

/** Refuses patterns that could leave the search directory: absolute, or with a `..` segment. */
export function checkPattern(pattern: string): void {
  if (pattern.includes('\0')) throw new ToolError('BadArgs', 'the pattern contains a NUL byte');
  if (pattern.startsWith('/') || /^[A-Za-z]:[\\/]/.test(pattern)) {
    throw new ToolError(
      'SandboxViolation',
      `absolute pattern "${pattern}" is not allowed; patterns are relative to path`,
    );
  }
  if (pattern.split(/[\\/]/).includes('..')) {
    throw new ToolError(
      'SandboxViolation',
      `pattern "${pattern}" contains ".."; search from a different path instead`,
    );
  }
}

/**
 * Whether a pattern names a dot itself somewhere (`.github/**`, `{.github,src}/*.yml`), so that
 * hidden folders can hold its answers and ripgrep must walk them.
 */
function namesADot(pattern: string): boolean {
  return /(^|[/{,])\./.test(pattern);
}

/**
 * Hidden names without include_hidden, as globs take them: a wildcard never matches a leading dot,
 * so a name reaches through hidden segments only where the pattern names dots itself. The listing
 * came with hidden names; this takes out what such a glob would not match. Where the JavaScript
 * walker could take the pattern too, picomatch without `dot` judges, as it does there (braces
 * included: `{.github,src}/*.yml`); a pattern only ripgrep takes is judged by counting the
 * segments that start with a dot.
 */
function visibleFor(pattern: string): (name: string) => boolean {
  let judge: (name: string) => boolean;
  try {
    checkFallbackPattern(pattern); // bounded wildcards: picomatch's regex cannot backtrack for long
    judge = picomatch(pattern, { dot: false });
  } catch {
    const dotSegments = pattern.split('/').filter((s) => s.startsWith('.')).length;
    judge = (name) => name.split('/').filter((s) => s.startsWith('.')).length <= dotSegments;
  }
  return (name) => (!name.startsWith('.') && !name.includes('/.')) || judge(name); // most names: no hidden segment
}

/**
 * Without ripgrep, patterns are matched by picomatch, whose regexes backtrack: extended globs and
 * more than two wildcards in a path segment (which can take exponential time on long names) are
 * refused there.
 */
function checkFallbackPattern(pattern: string): void {
  if (/[@!+*?]\(/.test(pattern)) {
    throw new ToolError('BadArgs', `extended glob syntax (like +(…)) is not supported: "${pattern}"`);
  }
  const stars = pattern
    .split('/')
    .filter((s) => s !== '**')
    .map((s) => (s.match(/[*?]/g) ?? []).length);
  if (stars.some((n) => n > 2) || stars.reduce((x, y) => x + y, 0) > 4) {
    throw new ToolError(
      'BadArgs',
      `too many wildcards in "${pattern}": at most two per path segment and four in all`,
    );
  }
}

/**
 * Finds files by glob (tinyglobby) under a directory of the sandbox: never follows symlinks,
 * honours every .gitignore and the hidden-file rule, leaves out denied paths, and returns sorted
 * paths relative to the root with a clear "N more not shown" line past max_results.
 */
export function createGlobTool(settings: { timeoutMs?: number; forceJavaScript?: boolean } = {}) {
  return defineTool({
    name: 'glob',
    description:
      'Find files whose paths match a glob pattern (e.g. "**/*.ts"). Returns sorted paths relative to the workspace root, one per line. Respects .gitignore; hidden files only with include_hidden.',
    args,
    tier: 'read_only',
    category: 'filesystem',
    ...(settings.timeoutMs === undefined ? {} : { timeoutMs: settings.timeoutMs }),
    summary: (a) => `Find files matching ${a.pattern}${a.path === '.' ? '' : ` in ${a.path}`}`,
    locations: (a) => [{ path: a.path, access: 'list' }],
    async execute(a, ctx) {
      checkPattern(a.pattern);
      if (a.pattern.startsWith('!')) {
        // picomatch reads it as "everything but", ripgrep as a name with a `!`: refused, not guessed.
        throw new ToolError(
          'BadArgs',
          `pattern "${a.pattern}" starts with "!": glob lists what matches and has no exclusions; name the files to find (for a name that begins with "!", start the pattern with "?")`,
        );
      }
      const base = ctx.sandbox.resolve(a.path);
      // Verifies it is a real directory inside the root (and not a link swapped in) before walking.
      const { handle } = await openForRead(base, ctx.sandbox, 'directory');
      const filter = new GitignoreFilter(base.root, base.relative);
      const prefix = base.relative === '.' ? '' : `${base.relative}/`;
      let ignored = 0;
      /** A fresh judge of listed names (ripgrep's walk may run twice): denied and ignored ones out. */
      const judge = (visible: (name: string) => boolean) => () => {
        ignored = 0;
        return (rel: string): string | undefined => {
          // The answer is one path a line: a name with a line break would read as two (or as part
          // of a denied one). Left out, as the JavaScript walker leaves it out.
          if (!visible(rel) || LINE_BREAK_IN_NAME.test(rel)) return undefined;
          const fromRoot = prefix + rel;
          if (ctx.sandbox.deniedPattern(fromRoot) === undefined && !filter.ignores(fromRoot)) return fromRoot;
          ignored++;
          return undefined;
        };
      };
      let kept: string[];
      let truncated = false;
      const startedAt = Date.now();
      try {
        const binary = settings.forceJavaScript ? undefined : ripgrepBinary();
        if (binary) {
          // Matching by automaton in a child process: no pattern can hang toolgate (issue #13).
          const listed = await globWithPruning(binary, throughFdForChild(handle, base.absolute), a.pattern, {
            // Hidden folders are walked only when they can match: include_hidden, or a pattern that
            // names a dot itself (`.github/**`); skipping them is most of ripgrep's speed.
            hidden: a.include_hidden || namesADot(a.pattern),
            signal: ctx.signal,
            filter,
            base: base.relative,
            judge: judge(a.include_hidden ? () => true : visibleFor(a.pattern)),
          });
          kept = listed.names;
          truncated = listed.truncated;
        } else {
          checkFallbackPattern(a.pattern);
          // The pattern's literal start is a path like any other: resolved through the sandbox, so
          // a link in it (`rootlink/etc/pass*`) is judged by where it leads.
          const literal = a.pattern.split('/').slice(0, -1);
          const fixed = literal.slice(0, literal.findIndex((s) => /[*?[\]{}()!\\]/.test(s)) >>> 0);
          if (fixed.length > 0) ctx.sandbox.resolve(path.posix.join(base.relative, ...fixed));
          // Walk from the verified directory inode, not its name (which a racing link could take over).
          // Loaded only here: with ripgrep present, never.
          const { glob: tinyglob } = await import('tinyglobby');
          const found = await tinyglob(a.pattern, {
            cwd: throughFd(handle, base.absolute),
            dot: a.include_hidden,
            followSymbolicLinks: false,
            onlyFiles: true,
            expandDirectories: false,
            ignore: ['**/.git/**'],
            signal: ctx.signal,
          });
          const keep = judge(() => true)();
          kept = found.flatMap((rel) => keep(rel) ?? []);
        }
        // Both walks go by path names: a folder swapped for a link meanwhile lent them names from
        // outside the root, which are left out here.
        kept = confirmListed(kept, { fdPath: throughFd(handle, base.absolute), prefix }, startedAt);
      } finally {
        await handle.close();
      }
      kept.sort(); // strings by UTF-16 code units, as `<` compares them
      const shown = kept.slice(0, a.max_results);
      const more = kept.length - shown.length;
      if (kept.length === 0) {
        return {
          content: `No files match "${a.pattern}" in ${base.relative === '.' ? 'the workspace' : base.relative}.`,
          metadata: { matches: 0, ignored },
        };
      }
      return {
        content:
          shown.join('\n') +
          (more > 0 ? `\n[${more} more not shown; narrow the pattern or raise max_results]` : '') +
          (truncated ? '\n[the search stopped after 200,000 names; narrow the pattern or the path]' : ''),
        display: `${kept.length} file(s) match ${a.pattern}`,
        metadata: { matches: kept.length, shown: shown.length, ignored },
      };
    },
  });
}
