import { hostNote, shownUrl } from '../tools/web/shown-url.js';

// A URL (scheme://…) or a word with a dot that holds a letter outside ASCII (`gіthub.com:x/y`).
const URL_LIKE = /[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>()]+/giu;
const HOST_LIKE = /[^\s'"`<>():/@]*[^\x00-\x7f][^\s'"`<>():/@]*\.[^\s'"`<>():/@]+/gu;

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
  for (const m of text.matchAll(URL_LIKE)) consider(m[0]);
  for (const m of text.matchAll(HOST_LIKE)) consider(`http://${m[0]}/`);
  return notes;
}
