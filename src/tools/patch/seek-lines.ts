/**
 * Finds a run of lines in a file, as codex's seek_sequence does, in four passes: exact, ignoring
 * trailing whitespace, ignoring surrounding whitespace, and with Unicode dashes, quotes and spaces
 * folded to ASCII. Unlike codex, it returns every match of the first pass that finds any, so the
 * caller can refuse an ambiguous match instead of silently taking the first.
 */
const DASHES = /[\u2010-\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018-\u201b]/g;
const DOUBLE_QUOTES = /[\u201c-\u201f]/g;
const SPACES = /[\u00a0\u2002-\u200a\u202f\u205f\u3000]/g;

const PASSES: readonly ((s: string) => string)[] = [
  (s) => s,
  (s) => s.trimEnd(),
  (s) => s.trim(),
  (s) =>
    s
      .trim()
      .replace(DASHES, '-')
      .replace(SINGLE_QUOTES, "'")
      .replace(DOUBLE_QUOTES, '"')
      .replace(SPACES, ' '),
];

/** 0-based positions where `pattern` starts, searching from `start`; with `eof` only the last place. */
export function seekLines(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
): number[] {
  if (pattern.length === 0) return [start];
  if (pattern.length > lines.length) return [];
  const first = eof ? lines.length - pattern.length : start;
  const last = lines.length - pattern.length;
  if (first < start) return [];
  for (const norm of PASSES) {
    const want = pattern.map(norm);
    const found: number[] = [];
    for (let i = first; i <= last; i++) {
      let ok = true;
      for (let k = 0; k < want.length; k++) {
        if (norm(lines[i + k] as string) !== want[k]) {
          ok = false;
          break;
        }
      }
      if (ok) found.push(i);
    }
    if (found.length > 0) return found;
  }
  return [];
}
