/** `text` as one shell word, to paste as shown: bare when safe, else single-quoted. */
export function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
