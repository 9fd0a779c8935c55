import { gfm, strikethrough, taskListItems } from '@joplin/turndown-plugin-gfm';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { ToolError } from '../../core/tool-error.js';

export type PageFormat = 'markdown' | 'text' | 'html';

export interface PageText {
  title: string;
  /** Who wrote it, when Readability finds a byline. */
  byline?: string;
  text: string;
}

type Dom = ReturnType<typeof parseHTML>['document'];
type DomElement = ReturnType<Dom['querySelectorAll']>[number];

/** Nesting deeper than this is no page a person reads (Readability's recursion would overflow). */
const MAX_DEPTH = 512;
/** Readability scores at most this many elements; a bigger page is read whole, unscored. */
const MAX_ELEMENTS = 60_000;
/** Rows of all tables together that still become pipe tables. */
const MAX_TABLE_ROWS = 2_000;
/** Characters of chosen HTML kept by default (the caller passes its output limit). */
const DEFAULT_MAX_CHARS = 4 * 1024 * 1024;

/** How deep the tree goes, walked without recursion. */
function maxDepth(root: DomElement | null): number {
  if (!root) return 0;
  let deepest = 0;
  const stack: [DomElement, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [DomElement, number];
    if (depth > deepest) deepest = depth;
    if (deepest > MAX_DEPTH) return deepest;
    for (const child of node.children) stack.push([child as DomElement, depth + 1]);
  }
  return deepest;
}

/**
 * The HTML of the matched elements that no other match contains (a nested match is already in its
 * ancestor's HTML: repeating it made the text grow with the square of the nesting), cut at `max`.
 */
function outermost(nodes: DomElement[], max: number): string {
  const picked = new Set(nodes);
  const parts: string[] = [];
  let size = 0;
  for (const node of nodes) {
    let inside = false;
    for (let up = node.parentElement; up; up = up.parentElement) {
      if (picked.has(up as DomElement)) {
        inside = true;
        break;
      }
    }
    if (inside) continue;
    const html = node.outerHTML;
    parts.push(html);
    size += html.length + 1;
    if (size >= max) break;
  }
  return parts.join('\n').slice(0, max);
}

/** Elements that are never content. */
const NOISE = 'script, style, noscript, template, iframe, object, embed';
/** A link whose whole text is one of these is a heading's permalink, not something to read. */
const PERMALINK = new Set(['¶', '#', '§', '🔗', '⚓']);

/**
 * An HTML page as the model should read it: `selector` (CSS) picks elements first; otherwise
 * Readability finds the article (the whole body when it finds none). Links and images keep absolute
 * URLs (resolved against the page's final URL). Markdown via turndown (ATX headings, fenced code),
 * plain text, or the chosen HTML as it is.
 */
export function pageToText(
  html: string,
  pageUrl: string,
  format: PageFormat,
  selector?: string,
  maxChars = DEFAULT_MAX_CHARS,
): PageText {
  const { document } = parseHTML(html);
  const depth = maxDepth(document.documentElement as unknown as DomElement);
  if (depth > MAX_DEPTH) {
    throw new ToolError(
      'ExecutionFailed',
      `the page nests its elements ${depth} deep (more than ${MAX_DEPTH}): too deep to read as an article; no real page does this`,
    );
  }
  for (const node of document.querySelectorAll(NOISE)) node.remove();
  for (const a of document.querySelectorAll('a')) if (PERMALINK.has((a.textContent ?? '').trim())) a.remove();
  absolutize(document, pageUrl);
  let title = (document.querySelector('title')?.textContent ?? '').trim();
  let chosen: string;
  if (selector) {
    let nodes: DomElement[];
    try {
      nodes = [...document.querySelectorAll(selector)];
    } catch (error) {
      throw new ToolError(
        'BadArgs',
        `the selector ${JSON.stringify(selector)} is not valid CSS (${(error as Error).message})`,
      );
    }
    if (nodes.length === 0) {
      throw new ToolError(
        'NotFound',
        `no element of ${pageUrl} matches the selector ${JSON.stringify(selector)}`,
      );
    }
    chosen = outermost(nodes, maxChars);
  } else {
    // Readability edits the document it reads: nothing else needs this one any more. Its article
    // comes back as the element itself, so turndown does not parse it again.
    // Readability drops class names; a code block's language (`language-python`) is kept.
    const languages = new Set<string>();
    for (const code of document.querySelectorAll('pre code[class*="language-"], pre[class*="language-"]'))
      for (const name of (code.getAttribute('class') ?? '').split(/\s+/))
        if (name.startsWith('language-')) languages.add(name);
    let article: ReturnType<Readability<DomElement>['parse']> | undefined;
    try {
      article = new Readability(document as never, {
        serializer: (el) => el as unknown as DomElement,
        classesToPreserve: [...languages],
        maxElemsToParse: MAX_ELEMENTS,
      }).parse();
    } catch {
      article = undefined; // too many elements to score: the whole body is the text
    }
    const element = article?.content as unknown as DomElement | undefined;
    // Readability's title is the article's own (the headline, without " | Site name").
    if (article?.title) title = article.title.trim();
    const byline = article?.byline?.trim();
    const about = { title, ...(byline ? { byline } : {}) };
    // The tables plugin cannot read linkedom's table nodes: a page with tables goes as text,
    // which turndown parses itself (slower, so only then).
    if (format === 'markdown' && element) {
      const rows = element.querySelectorAll('tr').length;
      return { ...about, text: markdown(rows > 0 ? element.outerHTML : element, rows <= MAX_TABLE_ROWS) };
    }
    chosen = element?.outerHTML ?? document.body?.innerHTML ?? html;
  }
  if (format === 'html') return { title, text: chosen };
  if (format === 'text')
    return {
      title,
      text: tidyText(parseHTML(`<html><body>${chosen}</body></html>`).document.body.textContent ?? ''),
    };
  return { title, text: markdown(chosen) };
}

function markdown(input: string | DomElement, tables = true): string {
  const turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  // Tables as pipe tables, strikethrough, task lists. The tables plugin's time grows with the cube
  // of a table's rows: past MAX_TABLE_ROWS the rows come as plain lines instead.
  turndown.use(tables ? gfm : [strikethrough, taskListItems]);
  return turndown.turndown(input as never).trim();
}

function absolutize(document: Dom, base: string): void {
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute);
      if (value === null) continue;
      try {
        element.setAttribute(attribute, new URL(value, base).href);
      } catch {
        element.removeAttribute(attribute); // not a URL: nothing a reader could follow
      }
    }
  }
}

/** Text with runs of blank lines and trailing spaces removed. */
function tidyText(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
