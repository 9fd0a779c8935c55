import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { ToolError } from '../../core/tool-error.js';
import { codeLanguage } from './code-block.js';
import { docContainer } from './doc-sites.js';
import { domToMarkdown, PERMALINK } from './dom-to-markdown.js';
import { domToText } from './dom-to-text.js';
import type { HtmlElement } from './html-node.js';

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
    // sibling links, not `children` (linkedom builds a new list on each read)
    for (let child = node.firstElementChild; child; child = child.nextElementSibling)
      stack.push([child as DomElement, depth + 1]);
  }
  return deepest;
}

/**
 * The matched elements that no other match contains (a nested match is already in its ancestor:
 * repeating it made the text grow with the square of the nesting).
 */
function outermost(nodes: DomElement[]): DomElement[] {
  const picked = new Set(nodes);
  return nodes.filter((node) => {
    for (let up = node.parentElement; up; up = up.parentElement)
      if (picked.has(up as DomElement)) return false;
    return true;
  });
}

/** Elements that are never content. */
const NOISE = 'script, style, noscript, template, iframe, object, embed';

/**
 * An HTML page as the model should read it: `selector` (CSS) picks elements first; otherwise the
 * content container of a known documentation generator (doc-sites.ts), else Readability's article
 * (the whole body when it finds none). Links and images keep absolute URLs (resolved against the
 * page's final URL). Markdown by one walk of the DOM (dom-to-markdown.ts: ATX headings, every
 * `<pre>` a fenced block with its language, pipe tables), plain text, or the chosen HTML as it is.
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
  let title = (document.querySelector('title')?.textContent ?? '').trim();
  const container = selector ? undefined : docContainer(document);
  if (container && format === 'markdown') {
    // The walk skips noise and permalinks and makes links absolute itself: no pass before it.
    const text = domToMarkdown(container as unknown as HtmlElement, pageUrl, MAX_TABLE_ROWS);
    if (text !== '') return { title, text };
  }
  for (const node of document.querySelectorAll(NOISE)) node.remove();
  for (const a of document.querySelectorAll('a')) if (PERMALINK.has((a.textContent ?? '').trim())) a.remove();
  absolutize(document, pageUrl);
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
    const picked = outermost(nodes);
    chosen = joinUpTo(picked, maxChars, format === 'markdown' ? '\n\n' : '\n', (node) =>
      format === 'markdown'
        ? domToMarkdown(node as unknown as HtmlElement, pageUrl, MAX_TABLE_ROWS)
        : node.outerHTML,
    );
    if (format === 'markdown') return { title, text: chosen };
  } else if (container) {
    chosen = container.outerHTML;
  } else {
    // Readability edits the document it reads: nothing else needs this one any more. Its article
    // comes back as the element itself, so nothing parses it again. Readability drops class names
    // and wrappers: each code block's language is written on the block first.
    markCodeLanguages(document);
    let article: ReturnType<Readability<DomElement>['parse']> | undefined;
    try {
      article = new Readability(document as never, {
        serializer: (el) => el as unknown as DomElement,
        maxElemsToParse: MAX_ELEMENTS,
      }).parse();
    } catch {
      article = undefined; // too many elements to score: the whole body is the text
    }
    const element = article?.content as unknown as DomElement | undefined;
    // Readability's title is the article's own (the headline, without " | Site name").
    if (article?.title) title = article.title.trim();
    const byline = article?.byline?.trim();
    if (format === 'markdown') {
      const root = element ?? document.body;
      return {
        title,
        ...(byline ? { byline } : {}),
        text: root ? domToMarkdown(root as unknown as HtmlElement, pageUrl, MAX_TABLE_ROWS) : '',
      };
    }
    chosen = element?.outerHTML ?? document.body?.innerHTML ?? html;
  }
  if (format === 'html') return { title, text: chosen };
  return {
    title,
    text: domToText(parseHTML(`<html><body>${chosen}</body></html>`).document.body as unknown as HtmlElement),
  };
}

/** Each node's text, one after another, until `max` characters (past them nothing is converted). */
function joinUpTo(
  nodes: DomElement[],
  max: number,
  separator: string,
  text: (node: DomElement) => string,
): string {
  const parts: string[] = [];
  let size = 0;
  for (const node of nodes) {
    if (size >= max) break;
    const part = text(node);
    parts.push(part);
    size += part.length + 1;
  }
  return parts.join(separator).slice(0, max);
}

function markCodeLanguages(document: Dom): void {
  for (const pre of document.querySelectorAll('pre')) {
    const language = codeLanguage(pre as unknown as HtmlElement, (pre.textContent ?? '').trimStart());
    if (language) pre.setAttribute('data-lang', language);
  }
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
