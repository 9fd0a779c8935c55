import { fencedCode, inlineCode } from './code-block.js';
import { type HtmlElement, type HtmlNode, hasClass, isElement, TEXT_NODE } from './html-node.js';
import { pipeTable, tableRows } from './markdown-table.js';
import { destination, inlineText, LINE_BREAK, paragraph } from './markdown-text.js';

/** A link whose whole text is one of these is a heading's permalink, not something to read. */
export const PERMALINK = new Set(['¶', '#', '§', '🔗', '⚓']);

/** Elements that are never content: scripts, styles, embedded documents, form controls. */
export const NOT_CONTENT: ReadonlySet<string> = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'head',
  'button',
  'select',
  'textarea',
  'input',
  'svg',
  'canvas',
]);
/** Elements that stand as blocks of their own: the text before and after them is another paragraph. */
export const BLOCKS: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'body',
  'center',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hgroup',
  'html',
  'legend',
  'main',
  'nav',
  'p',
  'search',
  'section',
  'summary',
]);
/** A block that is a list: a paragraph starting like one has its marker escaped (markdown-text.ts). */
const LIST_START = /^(?:- |\d{1,9}\. )/;
const HEADINGS: Record<string, string> = {
  h1: '#',
  h2: '##',
  h3: '###',
  h4: '####',
  h5: '#####',
  h6: '######',
};

/** What one block container collects: finished blocks, and the inline run not yet laid out. */
interface Sink {
  blocks: string[];
  inline: string[];
}

/**
 * An element as Markdown in one walk of the DOM: noise skipped, permalinks dropped,
 * links and images made absolute against `base`, every `<pre>` a fenced block with its language.
 * Rows of all tables together beyond `maxTableRows` come as plain lines.
 */
export function domToMarkdown(root: HtmlElement, base: string, maxTableRows: number): string {
  return new MarkdownWalk(base, maxTableRows).convert(root);
}

class MarkdownWalk {
  private readonly urls = new Map<string, string | undefined>();
  private inHeading = 0;
  private inCell = 0;
  /** The page's URL without its fragment, then `#`: a link starting so stays on the page. */
  private readonly page: string;

  constructor(
    private readonly base: string,
    private rowsLeft: number,
  ) {
    this.page = `${base.split('#')[0]}#`;
  }

  convert(root: HtmlElement): string {
    const sink: Sink = { blocks: [], inline: [] };
    this.element(root, sink);
    this.flush(sink);
    return sink.blocks.join('\n\n');
  }

  private flush(sink: Sink): void {
    if (sink.inline.length === 0) return;
    const text = paragraph(sink.inline, this.inHeading === 0);
    sink.inline.length = 0;
    if (text) sink.blocks.push(text);
  }

  /** A part of the page converted on its own (a list item, a quote, a cell), as its blocks. */
  private part(element: HtmlElement): string[] {
    const sink: Sink = { blocks: [], inline: [] };
    this.children(element, sink);
    this.flush(sink);
    return sink.blocks;
  }

  private children(element: HtmlNode, sink: Sink): void {
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT_NODE) {
        const text = inlineText(child.textContent ?? '');
        // whitespace between blocks, or a second space in a row, is no text
        if (text === ' ' && (sink.inline.length === 0 || sink.inline[sink.inline.length - 1]?.endsWith(' ')))
          continue;
        sink.inline.push(text);
      } else if (isElement(child)) this.element(child, sink);
    }
  }

  private element(element: HtmlElement, sink: Sink): void {
    const tag = element.localName;
    if (BLOCKS.has(tag)) {
      this.flush(sink);
      this.children(element, sink);
      this.flush(sink);
      return;
    }
    const heading = HEADINGS[tag];
    if (heading !== undefined) {
      this.heading(element, heading, sink);
      return;
    }
    switch (tag) {
      case 'pre':
        if (this.inCell) this.code(element, sink);
        else {
          this.flush(sink);
          sink.blocks.push(fencedCode(element));
        }
        break;
      case 'code':
      case 'tt':
      case 'kbd':
      case 'samp':
        this.code(element, sink);
        break;
      case 'ul':
      case 'ol':
        this.list(element, tag === 'ol', sink);
        break;
      case 'blockquote':
        this.quote(element, sink);
        break;
      case 'table':
        this.table(element, sink);
        break;
      case 'hr':
        this.flush(sink);
        sink.blocks.push('---');
        break;
      case 'br':
        sink.inline.push(LINE_BREAK);
        break;
      case 'a':
        this.link(element, sink);
        break;
      case 'img':
        this.image(element, sink);
        break;
      case 'strong':
      case 'b':
        this.wrap(element, sink, '**', '**');
        break;
      case 'em':
      case 'i':
        this.wrap(element, sink, '_', '_');
        break;
      case 'del':
      case 's':
      case 'strike':
        this.wrap(element, sink, '~~', '~~');
        break;
      case 'input':
        if (element.getAttribute('type') === 'checkbox')
          sink.inline.push(element.getAttribute('checked') === null ? '[ ] ' : '[x] ');
        break;
      case 'td':
      case 'span':
        // Sphinx's line numbers beside a code block are not text
        if (!hasClass(element, 'linenos')) this.children(element, sink);
        break;
      default:
        if (!NOT_CONTENT.has(tag)) this.children(element, sink);
    }
  }

  /** Inline markup around an element's text; spaces at its edges stay outside the markup. */
  private wrap(element: HtmlElement, sink: Sink, open: string, close: string): void {
    const mark = sink.inline.length;
    const blocks = sink.blocks.length;
    this.children(element, sink);
    if (sink.blocks.length !== blocks) return; // a block inside: its text stands without the markup
    const inner = sink.inline.splice(mark).join('');
    const core = inner.trim();
    if (core === '') {
      if (inner !== '') sink.inline.push(' ');
      return;
    }
    sink.inline.push(
      `${inner.startsWith(' ') ? ' ' : ''}${open}${core}${close}${inner.endsWith(' ') ? ' ' : ''}`,
    );
  }

  private code(element: HtmlElement, sink: Sink): void {
    const text = element.textContent ?? '';
    const code = inlineCode(text);
    if (code === '') {
      if (text !== '') sink.inline.push(' ');
      return;
    }
    sink.inline.push(`${/^\s/.test(text) ? ' ' : ''}${code}${/\s$/.test(text) ? ' ' : ''}`);
  }

  private heading(element: HtmlElement, marks: string, sink: Sink): void {
    this.flush(sink);
    this.inHeading++;
    const text = this.part(element)
      .join(' ')
      .replace(/\s*\n\s*/g, ' ');
    this.inHeading--;
    if (text) sink.blocks.push(`${marks} ${text}`);
  }

  private link(element: HtmlElement, sink: Sink): void {
    const href = element.getAttribute('href');
    const label = element.textContent ?? '';
    if (label.length <= 8 && PERMALINK.has(label.trim())) return;
    const url = href === null || /^\s*javascript:/i.test(href) ? undefined : this.absolute(href);
    // A heading's link to its own place on the page (mdBook, rustdoc) adds nothing to the heading.
    if (url !== undefined && this.inHeading > 0 && url.startsWith(this.page)) {
      this.children(element, sink);
      return;
    }
    if (url === undefined) this.children(element, sink);
    else this.wrap(element, sink, '[', `](${destination(url)})`);
  }

  private image(element: HtmlElement, sink: Sink): void {
    const src = element.getAttribute('src');
    const url = src === null ? undefined : this.absolute(src);
    if (url === undefined) return;
    const alt = inlineText(element.getAttribute('alt') ?? '').trim();
    sink.inline.push(`![${alt}](${destination(url)})`);
  }

  private absolute(href: string): string | undefined {
    let url = this.urls.get(href);
    if (url === undefined && !this.urls.has(href)) {
      try {
        url = new URL(href, this.base).href;
      } catch {
        url = undefined; // not a URL: nothing a reader could follow
      }
      this.urls.set(href, url);
    }
    return url;
  }

  private list(element: HtmlElement, ordered: boolean, sink: Sink): void {
    this.flush(sink);
    let number = ordered ? Number.parseInt(element.getAttribute('start') ?? '1', 10) || 1 : 0;
    const items: string[] = [];
    let loose = false;
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (!isElement(child)) continue;
      const parts = this.part(child);
      if (parts.length === 0) continue;
      // a list inside an item follows its text on the next line; other blocks make the list loose
      let body = parts[0] ?? '';
      for (const part of parts.slice(1)) {
        const nested = LIST_START.test(part);
        if (!nested) loose = true;
        body += `${nested ? '\n' : '\n\n'}${part}`;
      }
      const marker = ordered ? `${number++}. ` : '- ';
      items.push(`${marker}${body.replace(/\n(?!\n)/g, `\n${' '.repeat(marker.length)}`)}`);
    }
    if (items.length > 0) sink.blocks.push(items.join(loose ? '\n\n' : '\n'));
  }

  private quote(element: HtmlElement, sink: Sink): void {
    this.flush(sink);
    const body = this.part(element).join('\n\n');
    if (body !== '')
      sink.blocks.push(
        body
          .split('\n')
          .map((line) => (line ? `> ${line}` : '>'))
          .join('\n'),
      );
  }

  private table(element: HtmlElement, sink: Sink): void {
    this.flush(sink);
    // Sphinx's numbered code: a table of line numbers beside the block, which is code, not a table.
    if (hasClass(element, 'highlighttable')) {
      this.children(element, sink);
      this.flush(sink);
      return;
    }
    for (let child = element.firstChild; child; child = child.nextSibling)
      if (isElement(child) && child.localName === 'caption') sink.blocks.push(...this.part(child));
    const rows = tableRows(element);
    if (rows.length === 0) return;
    this.inCell++;
    const texts = rows.map((cells) => cells.flatMap((cell) => this.cell(cell)));
    this.inCell--;
    if (rows.length > this.rowsLeft) {
      // Past the budget, rows as lines: a reader still gets every cell.
      sink.blocks.push(texts.map((cells) => cells.filter(Boolean).join(' ')).join('\n'));
      return;
    }
    this.rowsLeft -= rows.length;
    sink.blocks.push(pipeTable(texts));
  }

  /** A cell's text on one line (its blocks and line breaks as `<br>`), then a blank per extra column. */
  private cell(cell: HtmlElement): string[] {
    const text = this.part(cell)
      .join('<br>')
      .replace(/ *\n+ */g, '<br>');
    const span = Math.min(Number.parseInt(cell.getAttribute('colspan') ?? '1', 10) || 1, 64);
    return span > 1 ? [text, ...Array<string>(span - 1).fill('')] : [text];
  }
}
