/**
 * Indentation-insensitive matching that still keeps what a person was shown (issue #30 §1, hostile
 * review): lines written without their common indentation match only when the file's lines are the
 * shown lines moved as ONE block, by one whitespace prefix. Trimming each line on its own let
 * `if x:` / `return y` match a file where `return y` sat inside the `if`, and the edit moved it out.
 */
export interface IndentShift {
  /** Whitespace the file has in front of every shown line (the shown lines were less indented). */
  add: string;
  /** Whitespace the shown lines have in front of every file line (they were more indented). */
  remove: string;
}

export const leadingWhitespace = (s: string): string => /^[ \t]*/.exec(s)?.[0] ?? '';

const blank = (s: string) => s.trim() === '';

/**
 * The one shift that turns `shown` into `file` line by line (trailing whitespace ignored; blank
 * lines match blank lines), or undefined when the lines differ in anything else, including their
 * indentation relative to each other.
 */
export function commonShift(file: readonly string[], shown: readonly string[]): IndentShift | undefined {
  if (file.length !== shown.length) return undefined;
  let shift: IndentShift | undefined;
  for (let k = 0; k < file.length; k++) {
    const f = (file[k] as string).trimEnd();
    const w = (shown[k] as string).trimEnd();
    if (blank(f) || blank(w)) {
      if (blank(f) && blank(w)) continue;
      return undefined;
    }
    if (!shift) {
      const fi = leadingWhitespace(f);
      const wi = leadingWhitespace(w);
      if (fi.endsWith(wi)) shift = { add: fi.slice(0, fi.length - wi.length), remove: '' };
      else if (wi.endsWith(fi)) shift = { add: '', remove: wi.slice(0, wi.length - fi.length) };
      else return undefined;
    }
    if (f !== shift.add + w.slice(shift.remove.length) || !w.startsWith(shift.remove)) return undefined;
  }
  return shift ?? { add: '', remove: '' };
}

/**
 * `text` moved by `shift`, every non-blank line alike (blank lines stay as given). Undefined when a
 * line cannot move that far left: it does not start with the whitespace to remove, so moving the
 * block would change its indentation relative to the others.
 */
export function applyShift(text: string, shift: IndentShift | undefined): string | undefined {
  if (!shift || (shift.add === '' && shift.remove === '')) return text;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (blank(line)) out.push(line);
    else if (shift.remove === '') out.push(shift.add + line);
    else if (line.startsWith(shift.remove)) out.push(line.slice(shift.remove.length));
    else return undefined;
  }
  return out.join('\n');
}

/**
 * Where shown lines that equal the file's ignoring all indentation first differ in relative
 * indentation: for an error that says what to copy. Undefined when they differ in more than that.
 */
export function firstIndentDifference(
  file: readonly string[],
  shown: readonly string[],
): { index: number; file: string; shown: string } | undefined {
  if (file.length !== shown.length) return undefined;
  if (file.some((f, k) => f.trim() !== (shown[k] as string).trim())) return undefined;
  for (let n = 1; n <= file.length; n++) {
    if (!commonShift(file.slice(0, n), shown.slice(0, n))) {
      return { index: n - 1, file: file[n - 1] as string, shown: shown[n - 1] as string };
    }
  }
  return undefined;
}

/** Whitespace spelled out for a message: "8 spaces", "1 tab and 4 spaces", "no indentation". */
export function describeIndent(line: string): string {
  const ws = leadingWhitespace(line);
  if (ws === '') return 'no indentation';
  const tabs = [...ws].filter((c) => c === '\t').length;
  const spaces = ws.length - tabs;
  const parts = [
    tabs ? `${tabs} tab${tabs === 1 ? '' : 's'}` : '',
    spaces ? `${spaces} space${spaces === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  return parts.join(' and ');
}
