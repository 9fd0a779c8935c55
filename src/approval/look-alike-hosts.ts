import { hostNote, shownUrl } from '../tools/web/shown-url.js';

// Words of a command line, and the parts of a word that can be a host (`git@gіthub.com:o/r`).
// Split and scanned without backtracking: a hostile line of 256 KB is read in linear time.
const WORD_BREAK = /[\s'"`<>()]+/;
const HOST_BREAK = /[:/@]/;
const NON_ASCII = /[^\x00-\x7f]/;
const SCHEME_CHAR = /[a-z0-9+.-]/i;

/** The URL a word holds (`--url=https://…` too): from its scheme to the word's end. */
function urlIn(word: string): string | undefined {
  const sep = word.indexOf('://');
  if (sep <= 0) return undefined;
  let start = sep;
  while (start > 0 && SCHEME_CHAR.test(word[start - 1] as string)) start--;
  while (start < sep && !/[a-z]/i.test(word[start] as string)) start++; // a scheme starts with a letter
  return start < sep ? word.slice(start) : undefined;
}

/**
 * What a person should know about the hosts a command line names (issue #30 §3, for commands as
 * web_fetch has it for URLs): each host written with letters outside ASCII, as the ASCII name it
 * resolves to, and whether it mixes scripts (`raw.gіthubusercontent.com` with a Cyrillic і looks
 * exactly like the real one). Empty when every host is plain ASCII.
 */
export function lookAlikeHostNotes(text: string): string[] {
  const notes: string[] = [];
  const seen = new Set<string>();
  const consider = (candidate: string) => {
    const shown = shownUrl(candidate);
    const note = hostNote(shown);
    if (!note || !shown.unicodeHost || seen.has(shown.unicodeHost)) return;
    seen.add(shown.unicodeHost);
    notes.push(`the host ${shown.unicodeHost} is ${new URL(shown.url).hostname} (${note})`);
  };
  for (const word of text.split(WORD_BREAK)) {
    const url = urlIn(word);
    if (url) consider(url);
    if (!NON_ASCII.test(word)) continue;
    for (const piece of word.split(HOST_BREAK))
      if (NON_ASCII.test(piece) && piece.includes('.')) consider(`http://${piece}/`);
  }
  return notes;
}
