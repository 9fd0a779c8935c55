/**
 * A field that is one line where it is shown (a page's title in web_fetch's header, a todo in the
 * list) stays one line whatever untrusted text it holds (issue #30 §11): otherwise a newline in it
 * forges the lines after it (`Source: …`, `[ ] todo-… : …`). Line breaks become `mark` (a space by
 * default: runs of white space collapse; `⏎` keeps where they were), other control characters and
 * bidi overrides a visible `\xNN` / `\uNNNN`.
 */

// Every line break a reader might honour: CR LF, LF, CR, VT, FF, NEL, LINE and PARAGRAPH SEPARATOR.
const BREAKS = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function oneLine(text: string, mark: ' ' | '⏎' = ' '): string {
  const broken =
    mark === ' ' ? text.replace(BREAKS, ' ').replace(/\s+/g, ' ').trim() : text.replace(BREAKS, mark);
  return broken.replace(CONTROLS, (c) => {
    if (c === '\t') return ' ';
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
