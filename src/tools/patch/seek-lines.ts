/**
 * Finds a run of lines in a file, as codex's seek_sequence does, in passes: exact, ignoring
 * trailing whitespace, then with Unicode dashes, quotes and spaces folded to ASCII. Unlike codex,
 * it returns every match of the first pass that finds any, so the caller can refuse an ambiguous
 * match instead of silently taking the first; and leading whitespace must match (issue #30 §1):
 * lines at another indentation would put the patch's added lines in another block than the one
 * shown. Only `@@ <line>` headers, which place a chunk but are never written, ignore indentation.
 */
const DASHES = /[\u2010-\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018-\u201b]/g;
const DOUBLE_QUOTES = /[\u201c-\u201f]/g;
const SPACES = /[\u00a0\u2002-\u200a\u202f\u205f\u3000]/g;

const fold = (s: string) =>
  s.replace(DASHES, '-').replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(SPACES, ' ');

const KEEP_INDENT: readonly ((s: string) => string)[] = [
  (s) => s,
  (s) => s.trimEnd(),
  (s) => fold(s).trimEnd(),
];

const IGNORE_INDENT: readonly ((s: string) => string)[] = [
  ...KEEP_INDENT,
  (s) => s.trim(),
  (s) => fold(s).trim(),
];

/**
 * 0-based positions where `pattern` starts, searching from `start`; with `eof` only the last place.
 * `indentation: 'ignored'` is for lines that only place a chunk (`@@` headers) and for messages.
 */
export function seekLines(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  eof: boolean,
  indentation: 'kept' | 'ignored' = 'kept',
): number[] {
  if (pattern.length === 0) return [start];
  if (pattern.length > lines.length) return [];
  const first = eof ? lines.length - pattern.length : start;
  const last = lines.length - pattern.length;
  if (first < start) return [];
  for (const norm of indentation === 'kept' ? KEEP_INDENT : IGNORE_INDENT) {
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
