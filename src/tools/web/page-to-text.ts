import { gfm } from '@joplin/turndown-plugin-gfm';
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
export function pageToText(html: string, pageUrl: string, format: PageFormat, selector?: string): PageText {
  const { document } = parseHTML(html);
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
    chosen = nodes.map((n) => n.outerHTML).join('\n');
  } else {
    // Readability edits the document it reads: nothing else needs this one any more. Its article
    // comes back as the element itself, so turndown does not parse it again.
    // Readability drops class names; a code block's language (`language-python`) is kept.
    const languages = new Set<string>();
    for (const code of document.querySelectorAll('pre code[class*="language-"], pre[class*="language-"]'))
      for (const name of (code.getAttribute('class') ?? '').split(/\s+/))
        if (name.startsWith('language-')) languages.add(name);
    const article = new Readability(document as never, {
      serializer: (el) => el,
      classesToPreserve: [...languages],
    }).parse();
    const element = article?.content as unknown as DomElement | undefined;
    // Readability's title is the article's own (the headline, without " | Site name").
    if (article?.title) title = article.title.trim();
    const byline = article?.byline?.trim();
    const about = { title, ...(byline ? { byline } : {}) };
    // The tables plugin cannot read linkedom's table nodes: a page with tables goes as text,
    // which turndown parses itself (slower, so only then).
    if (format === 'markdown' && element)
      return { ...about, text: markdown(element.querySelector('table') ? element.outerHTML : element) };
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

function markdown(input: string | DomElement): string {
  const turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  turndown.use(gfm); // tables as pipe tables, strikethrough, task lists
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
