import { preText } from './code-block.js';
import { BLOCKS, NOT_CONTENT } from './dom-to-markdown.js';
import { type HtmlElement, type HtmlNode, hasClass, isElement, TEXT_NODE } from './html-node.js';

/**
 * Elements that start and end a line of their own: Markdown's blocks, and headings, lists and
 * table parts. textContent runs a heading, a code signature
 * and the paragraph under it together ("…::Vecpub struct Vec…"); plain text keeps them apart.
 */
const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
const LINES: ReadonlySet<string> = new Set([
  ...BLOCKS,
  ...HEADINGS,
  'blockquote',
  'caption',
  'hr',
  'li',
  'ol',
  'table',
  'tbody',
  'thead',
  'tfoot',
  'tr',
  'ul',
]);
/** Blocks followed by an empty line: the text's paragraphs. */
const PARAGRAPHS = new Set(['p', ...HEADINGS, 'pre', 'table', 'ul', 'ol', 'dl', 'blockquote']);

/**
 * An element as plain text, in one walk: each block on lines of its own, paragraphs apart by an
 * empty line, a `<pre>` as it is written (its spaces and line breaks kept), table cells apart by a
 * tab, `<br>` a line break; runs of spaces elsewhere one space.
 */
export function domToText(root: HtmlElement): string {
  const out: string[] = [];
  walk(root, out);
  return out
    .join('')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function walk(node: HtmlNode, out: string[]): void {
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === TEXT_NODE) {
      const text = (child.textContent ?? '').replace(/\s+/g, ' ');
      // No space at a line's or a cell's start.
      const last = out[out.length - 1];
      const kept = last === undefined || last.endsWith('\n') || last.endsWith('\t') ? text.trimStart() : text;
      if (kept !== '') out.push(kept);
    } else if (isElement(child)) element(child, out);
  }
}

function element(element: HtmlElement, out: string[]): void {
  const tag = element.localName;
  if (NOT_CONTENT.has(tag)) return;
  if (tag === 'br') {
    out.push('\n');
    return;
  }
  if (tag === 'pre') {
    breakLines(out, 2);
    out.push(preText(element).replace(/^\n/, ''));
    breakLines(out, 2);
    return;
  }
  // Sphinx's numbered code: line numbers in one cell, the code in the next; the code alone is text.
  if (hasClass(element, 'linenos')) return;
  if ((tag === 'td' || tag === 'th') && inHighlightTable(element)) {
    walk(element, out);
    return;
  }
  if (tag === 'td' || tag === 'th') {
    // A cell stays on its row: its own paragraphs and lines become spaces.
    const cell: string[] = [];
    walk(element, cell);
    out.push(cell.join('').replace(/\s+/g, ' ').trim(), '\t');
    return;
  }
  if (!LINES.has(tag)) {
    walk(element, out);
    return;
  }
  const lines = PARAGRAPHS.has(tag) ? 2 : 1;
  breakLines(out, lines);
  walk(element, out);
  breakLines(out, lines);
}

/** Ends the text so far with at least `count` line breaks (a block in a block adds none). */
function breakLines(out: string[], count: number): void {
  let have = 0;
  for (let i = out.length - 1; i >= 0 && have < count; i--) {
    const chunk = out[i] as string;
    const trailing = chunk.length - chunk.replace(/\n+$/, '').length;
    have += trailing;
    if (trailing < chunk.length) break;
  }
  if (out.length > 0 && have < count) out.push('\n'.repeat(count - have));
}

function inHighlightTable(cell: HtmlElement): boolean {
  for (let up = cell.parentElement, hops = 0; up && hops < 3; up = up.parentElement, hops++)
    if (up.localName === 'table') return hasClass(up, 'highlighttable');
  return false;
}
