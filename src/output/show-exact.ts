/**
 * Text a person approves, made safe for a terminal (or a browser, or an MCP host's dialog) WITHOUT
 * losing a byte (issue #30 §1): every control character, escape, bidi override, zero-width,
 * default-ignorable, private-use or unassigned character and every space other than U+0020 is
 * written as a visible escape (`\x1b`, `\u202e`, `\u{e0041}`), never removed, so what is shown can
 * be decoded back to exactly what runs (`readShown`). A literal backslash that would read as such
 * an escape is itself escaped (`\x5c`). One-line mode (titles) also shows newline as ⏎ and tab as ⇥
 * (and a literal ⏎ or ⇥ as its escape). Tool output keeps `sanitizeForTerminal`, which removes.
 */

// What is never shown as itself: C0 (bar \t \n, handled per mode), DEL, C1, format characters
// (bidi, zero-width, tags, BOM, soft hyphen), line/paragraph separators, surrogates left alone,
// private use, unassigned, every default-ignorable (variation selectors, Hangul fillers), the
// braille blank, and spaces that look like a space but are not one.
// (The `v` flag, for "every space but U+0020"; built at run time as TypeScript's ES2022 target lacks it.)
const HIDDEN_SET = String.raw`[[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2800\\]\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}[\p{Zs}--[ ]]]`;
const HIDDEN = new RegExp(HIDDEN_SET, 'v');
const HIDDEN_ALL = new RegExp(HIDDEN_SET, 'gv');
const ONE_LINE = /[\n\t⏎⇥]/g;
const LINE_MARK: Record<string, string> = { '\n': '⏎', '\t': '⇥', '⏎': '\\u23ce', '⇥': '\\u21e5' };
// What `readShown` takes for an escape; a literal backslash before text of this shape is escaped.
const LOOKS_ESCAPED = /^(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4})/;
const ESCAPE = /\\x([0-9a-fA-F]{2})|\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})/g;

function escapeOf(c: string): string {
  const code = c.codePointAt(0) as number;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** `text` with everything invisible or terminal-steering made visible; `readShown` undoes it exactly. */
export function showExact(text: string, options: { oneLine?: boolean } = {}): string {
  let out = text;
  if (HIDDEN.test(out)) {
    out = out.replace(HIDDEN_ALL, (c: string, offset: number, whole: string) => {
      if (c === '\\') return LOOKS_ESCAPED.test(whole.slice(offset + 1, offset + 12)) ? '\\x5c' : c;
      return escapeOf(c);
    });
  }
  // After the escapes: ⏎ and ⇥ are printable, so the pass above left them (and its output has none).
  if (options.oneLine) out = out.replace(ONE_LINE, (c) => LINE_MARK[c] as string);
  return out;
}

/** The exact text `showExact` was given (in one-line mode, ⏎ and ⇥ read back as newline and tab). */
export function readShown(shown: string, options: { oneLine?: boolean } = {}): string {
  const lines = options.oneLine ? shown.replace(/[⏎⇥]/g, (c) => (c === '⏎' ? '\n' : '\t')) : shown;
  return lines.replace(ESCAPE, (whole, x?: string, braced?: string, u?: string) => {
    if (x !== undefined) return String.fromCharCode(Number.parseInt(x, 16));
    if (u !== undefined) return String.fromCharCode(Number.parseInt(u, 16));
    const code = Number.parseInt(braced as string, 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/**
 * A shown text cut to at most `max` characters as a one-line title, saying it was cut and how much
 * is left out; an escape is never split. The whole text must be shown on the same surface.
 */
export function capTitle(shown: string, max = 200): string {
  const chars = Array.from(shown);
  if (chars.length <= max) return shown;
  const left = (n: number) => ` … [cut: ${n} more characters]`;
  let keep = max - left(chars.length).length;
  // Back off to the start of an escape the cut would split.
  const head = chars.slice(0, keep).join('');
  const tail = head.slice(-11);
  const split = /\\(?:x[0-9a-fA-F]?|u\{[0-9a-fA-F]*|u[0-9a-fA-F]{0,3})?$/.exec(tail);
  if (split) keep -= split[0].length;
  return `${chars.slice(0, keep).join('')}${left(chars.length - keep)}`;
}
