import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import type { ResolvedPath } from '../sandbox/sandbox.js';

/**
 * Seed 002's `allowed_paths` / `forbidden_paths` (issue #30 §12). A pattern is either root-relative
 * (`docs/**`, matched against the path inside its root) or absolute: `/…`, `~/…`, `$HOME/…` or
 * `${HOME}/…` (the seed's own style), matched against the absolute resolved path. A pattern that
 * could never be honoured (another variable, `~user`, a `..` that no resolved path contains)
 * is a problem: config loading refuses it, and the policy denies every path of the tool meanwhile.
 */

const HOME_PREFIX = /^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/;

/** Why a pattern cannot be honoured, fix first; undefined when it can. */
export function governancePathProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'write a path pattern here; an empty one matches nothing';
  const rest = pattern.replace(HOME_PREFIX, '');
  if (/^~[^/]/.test(pattern))
    return `write the home directory as "~/" or "$HOME/" ("${pattern}": ~user is not expanded)`;
  if (/\$(?:\{|[A-Za-z_])/.test(rest))
    return `write the path out or start it with "~/" or "$HOME/" ("${pattern}": only $HOME is expanded)`;
  if (/(?:^|\/)\.\.(?:\/|$)/.test(pattern))
    return `write the pattern without ".." ("${pattern}": paths are matched in their resolved form, which has none)`;
  return undefined;
}

/** One compiled pattern: does a resolved path match it. */
export type PathTest = (p: ResolvedPath) => boolean;

/** Compiled governance path patterns, each made once (they come from the config, a finite set). */
export class GovernancePaths {
  readonly #home: string;
  readonly #tests = new Map<string, PathTest>();

  constructor(home = os.homedir()) {
    this.#home = home;
  }

  /** The pattern as a test; throws when it cannot be honoured (the policy's catch denies then). */
  test(pattern: string): PathTest {
    let test = this.#tests.get(pattern);
    if (!test) {
      test = this.#compile(pattern);
      this.#tests.set(pattern, test);
    }
    return test;
  }

  #compile(pattern: string): PathTest {
    const problem = governancePathProblem(pattern);
    // The engine denies before asking; should anyone else ask, a pattern never honoured is an error.
    if (problem) throw new Error(problem);
    const expanded = HOME_PREFIX.test(pattern)
      ? path.posix.join(toPosix(this.#home), pattern.replace(HOME_PREFIX, '') || '/')
      : pattern;
    if (!path.posix.isAbsolute(expanded)) {
      const relative = picomatch(expanded.replace(/^(?:\.\/)+/, ''), { dot: true });
      return (p) => relative(p.relative);
    }
    // Paths are judged in their canonical form: the pattern's literal base is made canonical too
    // (a home or a root reached through a link), and both forms are tried.
    const forms = [...new Set([expanded, canonicalForm(expanded)])].map((f) => picomatch(f, { dot: true }));
    return (p) => {
      const subject = toPosix(p.absolute);
      return forms.some((m) => m(subject));
    };
  }
}

/** The pattern with its literal base's deepest existing directory replaced by its real path. */
function canonicalForm(pattern: string): string {
  const { base } = picomatch.scan(pattern);
  let known = base || '/';
  let tail = pattern.slice(known.length);
  while (known !== '/') {
    try {
      const real = toPosix(realpathSync.native(known));
      return real === '/' ? `/${tail.replace(/^\//, '')}` : `${real}${tail}`;
    } catch {
      tail = `/${path.posix.basename(known)}${tail}`;
      known = path.posix.dirname(known);
    }
  }
  return pattern;
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/** Every governance path pattern of a config that cannot be honoured, with its key path (for config loading). */
export function governancePathProblems(
  governanceTools: Readonly<
    Record<string, { allowed_paths: readonly string[]; forbidden_paths: readonly string[] } | undefined>
  >,
): { keyPath: (string | number)[]; problem: string }[] {
  return Object.entries(governanceTools).flatMap(([tool, rules]) =>
    (['allowed_paths', 'forbidden_paths'] as const).flatMap((key) =>
      (rules?.[key] ?? []).flatMap((pattern, i) => {
        const problem = governancePathProblem(pattern);
        return problem ? [{ keyPath: ['tools', 'governance', 'tools', tool, key, i], problem }] : [];
      }),
    ),
  );
}
