/** Marks a `<br>` inside a run of inline text until the run is laid out (private use: never a page's). */
export const LINE_BREAK = '\uE000';

const INLINE_SPECIAL = /[\\*_`[\]]/;
/** Characters that are Markdown anywhere in a line. */
const MARKUP = /[\\*`[\]]/g;
/** An underscore that could open or close emphasis (not one inside a word, as in snake_case). */
const LOOSE_UNDERSCORE = /(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
/** What starts a block when it begins a line: a quote, a heading, a list item, a rule, a fence. */
const BLOCK_START =
  /^([ \t]*)(>|#{1,6}(?=[ \t]|$)|[-+](?=[ \t]|$)|[-=]+(?=[ \t]*$)|~{3,}|\d{1,9}[.)](?=[ \t]|$))/gm;

/** A text node's words as Markdown that shows them literally: whitespace collapsed, markup escaped. */
export function inlineText(text: string): string {
  let words = text.replace(/[\t\n\r\f ]+/g, ' ');
  if (words.includes(LINE_BREAK)) words = words.replaceAll(LINE_BREAK, '');
  if (!INLINE_SPECIAL.test(words)) return words;
  return words.replace(MARKUP, '\\$&').replace(LOOSE_UNDERSCORE, '\\_');
}

/** A paragraph's inline pieces laid out: spaces collapsed, `<br>` as a hard break, line starts escaped. */
export function paragraph(pieces: readonly string[], escapeStarts: boolean): string {
  let text = pieces.join('').replace(/ {2,}/g, ' ');
  if (text.includes(LINE_BREAK)) text = text.replace(/ *\uE000 */g, '  \n');
  text = text.trim();
  if (!escapeStarts || text === '') return text;
  return text.replace(BLOCK_START, (_all, space: string, mark: string) =>
    /\d/.test(mark[0] ?? '') ? `${space}${mark.slice(0, -1)}\\${mark.slice(-1)}` : `${space}\\${mark}`,
  );
}

/** A URL as a Markdown link destination: parentheses encoded so they cannot end it. */
export function destination(url: string): string {
  return url.includes('(') || url.includes(')') ? url.replace(/\(/g, '%28').replace(/\)/g, '%29') : url;
}
