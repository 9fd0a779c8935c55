import { type HtmlElement, type HtmlNode, isElement, TEXT_NODE } from './html-node.js';

/** Elements inside a code block that are not code: line numbers and copy buttons. */
const NOT_CODE = /(?:^|\s)(?:linenos|lineno|line-numbers|line-numbers-rows|copybtn|copy-button)(?:\s|$)/;
/** What a fence's info string may hold: a language name, nothing that could end the line or the fence. */
const LANGUAGE_NAME = /^[\w+#.-]{1,32}$/;
/** Highlighter names for the same language, as a reader expects them. */
const ALIASES: Record<string, string> = {
  python3: 'python',
  py3: 'python',
  py: 'python',
  pycon3: 'pycon',
  ipython3: 'ipython',
  none: '',
  nohighlight: '',
};
const PYTHON = new Set(['python', 'default']);

/**
 * A `<pre>` as a fenced code block: its text with highlighting flattened, `<br>` as a line break,
 * line numbers and buttons left out, nothing escaped; the fence longer than any backtick run inside.
 */
export function fencedCode(pre: HtmlElement): string {
  const code = preText(pre);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(code) + 1));
  return `${fence}${codeLanguage(pre, code)}\n${code}\n${fence}`;
}

/** A `<pre>`'s code as written: highlighting flattened, `<br>` a line break, line numbers and buttons left out. */
export function preText(pre: HtmlElement): string {
  const parts: string[] = [];
  codeText(pre, parts);
  return parts
    .join('')
    .replace(/\u00a0/g, ' ')
    .replace(/\s+$/, '');
}

/** Inline code (`<code>`, `<tt>`, `<kbd>`, `<samp>`): backticks that outnumber any run inside. */
export function inlineCode(text: string): string {
  const code = text.replace(/[\s\u00a0]+/g, ' ').trim();
  if (code === '') return '';
  const ticks = '`'.repeat(longestBacktickRun(code) + 1);
  const pad = code.startsWith('`') || code.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${code}${pad}${ticks}`;
}

function longestBacktickRun(text: string): number {
  if (!text.includes('`')) return 0;
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) if (run.length > longest) longest = run.length;
  return longest;
}

function codeText(node: HtmlNode, parts: string[]): void {
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === TEXT_NODE) parts.push(child.textContent ?? '');
    else if (isElement(child)) {
      if (child.localName === 'br') parts.push('\n');
      else if (child.localName !== 'button' && !NOT_CODE.test(child.getAttribute('class') ?? ''))
        codeText(child, parts);
    }
  }
}

/**
 * The language a page names for a code block: `data-lang`, `language-…`/`lang-…` on the `<pre>` or
 * its `<code>`, rustdoc's `pre.rust`, pandoc's `sourceCode …`, or a Sphinx `highlight-…` wrapper.
 * Sphinx's `default` is Python that fell back to plain text when it did not parse; like Sphinx, a
 * Python block that starts with `>>>` is a console session (`pycon`), else `default` names none.
 */
export function codeLanguage(pre: HtmlElement, code: string): string {
  let name = namedLanguage(pre);
  // the <code> inside (mdBook nests it once more: <pre><pre class="playground"><code class="language-rust">)
  for (let inner = firstElement(pre), hops = 0; name === undefined && inner && hops < 2; hops++) {
    if (inner.localName !== 'code' && inner.localName !== 'pre') break;
    name = namedLanguage(inner);
    inner = firstElement(inner);
  }
  for (
    let up = pre.parentElement, hops = 0;
    name === undefined && up && hops < 6;
    up = up.parentElement, hops++
  )
    name = wrapperLanguage(up);
  if (name === undefined) return '';
  name = name.toLowerCase();
  name = ALIASES[name] ?? name;
  if (PYTHON.has(name)) name = code.startsWith('>>>') ? 'pycon' : name === 'default' ? '' : name;
  return LANGUAGE_NAME.test(name) ? name : '';
}

function firstElement(node: HtmlNode): HtmlElement | undefined {
  for (let child = node.firstChild; child; child = child.nextSibling) if (isElement(child)) return child;
  return undefined;
}

function namedLanguage(element: HtmlElement): string | undefined {
  const data = element.getAttribute('data-lang') ?? element.getAttribute('data-language');
  if (data) return data;
  const value = element.getAttribute('class');
  if (!value) return undefined;
  const words = value.split(/\s+/);
  for (const word of words) {
    if (word.startsWith('language-')) return word.slice(9);
    if (word.startsWith('lang-')) return word.slice(5);
  }
  if (element.localName === 'pre' && words.includes('rust')) return 'rust';
  if (words.includes('sourceCode')) return words.find((w) => w !== 'sourceCode' && w !== 'numberSource');
  return undefined;
}

function wrapperLanguage(element: HtmlElement): string | undefined {
  const data = element.getAttribute('data-lang');
  if (data) return data;
  if (element.localName !== 'div') return undefined;
  const value = element.getAttribute('class');
  if (!value?.includes('highlight-')) return undefined;
  for (const word of value.split(/\s+/)) {
    if (word.startsWith('highlight-source-')) return word.slice(17);
    if (word.startsWith('highlight-')) return word.slice(10);
  }
  return undefined;
}
