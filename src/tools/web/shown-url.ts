import { domainToUnicode } from 'node:url';

/**
 * A URL as a person approving it must see it (issue #30 §3): the URL that is requested (WHATWG's
 * `href`, so the host is ASCII: `аpple.com` with a Cyrillic а is `xn--pple-43d.com`), and a note
 * when the host is written in other characters — saying so loudly when one label mixes scripts,
 * which is how a look-alike of a familiar name is made.
 */
export interface ShownUrl {
  /** What is requested; the text as written when it is not a URL (fetching it fails anyway). */
  url: string;
  /** The host as written in Unicode, when that differs from the ASCII one. */
  unicodeHost?: string;
  /** The scripts one label of the host mixes, e.g. ['Latin', 'Cyrillic']. */
  mixedScripts?: string[];
}

export function shownUrl(text: string): ShownUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { url: text };
  }
  const host = url.hostname;
  const unicode = domainToUnicode(host);
  if (unicode === '' || unicode === host) return { url: url.href };
  const mixed = unicode
    .split('.')
    .map(mixedScriptsOf)
    .find((s) => s !== undefined);
  return { url: url.href, unicodeHost: unicode, ...(mixed ? { mixedScripts: mixed } : {}) };
}

/** The note that follows the URL, or '' for a plain ASCII host. */
export function hostNote(shown: ShownUrl): string {
  if (!shown.unicodeHost) return '';
  const mixed = shown.mixedScripts;
  return `shown as ${shown.unicodeHost}${mixed ? `: mixes ${mixed.slice(0, -1).join(', ')} and ${mixed.at(-1)}` : ''}`;
}

// Scripts a domain label is commonly written in; a letter in none of them counts as "another script".
const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Armenian',
  'Georgian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Khmer',
  'Ethiopic',
  'Cherokee',
  'Canadian_Aboriginal',
  'Mongolian',
  'Han',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Hangul',
] as const;
let scriptTests: readonly (readonly [string, RegExp])[] | undefined;
const NEUTRAL = /[\p{Script=Common}\p{Script=Inherited}]/u;

// UTS #39's "highly restrictive" mixes: how Japanese, Chinese and Korean are written, Latin beside.
const WRITING_SYSTEMS = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
];

/** The scripts of one label (Latin first), when they are more than one writing system uses. */
function mixedScriptsOf(label: string): string[] | undefined {
  scriptTests ??= SCRIPTS.map((s) => [s.replace('_', ' '), new RegExp(`\\p{Script=${s}}`, 'u')] as const);
  const seen: string[] = [];
  for (const c of label) {
    if (NEUTRAL.test(c)) continue; // digits, the hyphen, combining marks
    const name = scriptTests.find(([, re]) => re.test(c))?.[0] ?? 'another script';
    if (!seen.includes(name)) seen.push(name);
  }
  if (seen.length < 2) return undefined;
  if (WRITING_SYSTEMS.some((system) => seen.every((s) => system.has(s)))) return undefined;
  const rank = (name: string) => scriptTests?.findIndex(([s]) => s === name) ?? -1;
  return seen.sort((a, b) => (rank(a) < 0 ? 99 : rank(a)) - (rank(b) < 0 ? 99 : rank(b)));
}

/**
 * `Fetch <url> (<note>)<more>` within `max` characters: the URL's end is cut before the note is,
 * since the note is what tells a look-alike host apart (the approval's detail shows the URL whole).
 */
export function summarizeUrl(verb: string, text: string, more = '', max = 200): string {
  const shown = shownUrl(text);
  const note = hostNote(shown);
  const tail = `${note ? ` (${note})` : ''}${more}`;
  const room = max - verb.length - 1 - tail.length;
  const url = Array.from(shown.url);
  const cut = url.length > room ? `${url.slice(0, Math.max(room - 1, 0)).join('')}…` : shown.url;
  return `${verb} ${cut}${tail}`;
}

/** The URL requested, whole, and on its own line the note about the host when there is one. */
export function detailUrl(text: string): string {
  const shown = shownUrl(text);
  const note = hostNote(shown);
  if (!note) return shown.url;
  return `${shown.url}\nhost ${note}; the request goes to ${new URL(shown.url).hostname}`;
}
