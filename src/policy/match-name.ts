import picomatch from 'picomatch';

/** Tool-name patterns in lists and rules: exact names or globs (`write_*`), `*` for all. */
export type NameMatcher = (name: string) => boolean;

export function nameMatcher(patterns: readonly string[]): NameMatcher {
  const exact = new Set(patterns.filter((p) => !picomatch.scan(p).isGlob));
  const globs = patterns.filter((p) => picomatch.scan(p).isGlob).map((p) => picomatch(p));
  if (globs.length === 0) return (name) => exact.has(name);
  return (name) => exact.has(name) || globs.some((test) => test(name));
}

/** Rule specificity: an exact name beats a glob, a glob beats `*` (seed 001: tool-specific first). */
export function specificity(pattern: string): number {
  if (pattern === '*') return 1;
  return picomatch.scan(pattern).isGlob ? 2 : 3;
}
