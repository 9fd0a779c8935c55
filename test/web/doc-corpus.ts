import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO } from '../cli/run-cli.js';

/**
 * Documentation pages web_fetch is checked on (issue #33): the real ones Debian installs
 * (python3-doc, rust-doc; .ci/run installs them in CI) and toolgate's own trimmed pages written in
 * the same generators' shapes (test/fixtures/web-pages), which are always there. Each page carries
 * the golden facts of its Markdown: not a snapshot, what a model needs from it.
 */
export interface DocPage {
  /** Where the page is served from the test's server: `/<root name>/<path>`. */
  urlPath: string;
  file: string;
  title: RegExp;
  /** The content container in the page's HTML: each of its `<pre>` must become one fenced block. */
  container: string;
  /** Lines that must sit inside a fenced block of that language, unescaped. */
  examples: { language: string; line: string }[];
  /** Lines of a pipe table (header, separator, a row) that must appear together. */
  table?: string[];
  /** A relative link of the page, made absolute: the path after `http://127.0.0.1:PORT`. */
  link: string;
  /** Navigation and chrome that must not appear. */
  chrome: string[];
}

export const PYTHON_DOCS = '/usr/share/doc/python3-doc/html';
export const RUST_DOCS = '/usr/share/doc/rust-doc/html';
export const OWN_PAGES_DIR = path.join(REPO, 'test/fixtures/web-pages');

/** The folders a test server serves, by the first segment of the URL path. */
export const ROOTS: Record<string, string> = { python: PYTHON_DOCS, rust: RUST_DOCS, own: OWN_PAGES_DIR };

const SPHINX_CHROME = ['Quick search', 'Previous topic', 'This Page', 'Navigation', 'Show Source', '¶'];
const RUSTDOC_CHROME = [
  'Copy item path',
  'Expand description',
  '[Run]',
  'Run](',
  '[−]',
  'Click or press',
  'Trait Implementations](',
  'source](',
];
const MDBOOK_CHROME = ['Toggle Table of Contents', 'Previous chapter', 'Search this book', 'Print this book'];

/** The installed pages: Python's Sphinx documentation, rustdoc's standard library, the Rust book. */
export const INSTALLED_PAGES: DocPage[] = [
  {
    urlPath: '/python/library/functions.html',
    file: `${PYTHON_DOCS}/library/functions.html`,
    title: /^Built-in Functions\b/,
    container: 'div.body[role=main]',
    examples: [
      { language: 'pycon', line: '>>> bin(-10)' },
      { language: 'pycon', line: ">>> f'{14:#b}', f'{14:b}'" },
      { language: 'python', line: 'def all(iterable):' },
    ],
    link: '/python/library/stdtypes.html#typesnumeric',
    chrome: SPHINX_CHROME,
  },
  {
    urlPath: '/python/library/stdtypes.html',
    file: `${PYTHON_DOCS}/library/stdtypes.html`,
    title: /^Built-in Types\b/,
    container: 'div.body[role=main]',
    examples: [
      { language: 'pycon', line: '>>> n = -37' },
      { language: 'python', line: 'def bit_length(self):' },
    ],
    table: [
      '| Operation | Result | Notes |',
      '| --- | --- | --- |',
      '| `x or y` | if _x_ is false, then _y_, else _x_ | (1) |',
    ],
    link: '/python/reference/expressions.html#comparisons',
    chrome: SPHINX_CHROME,
  },
  {
    urlPath: '/python/tutorial/datastructures.html',
    file: `${PYTHON_DOCS}/tutorial/datastructures.html`,
    title: /^5\. Data Structures\b/,
    container: 'div.body[role=main]',
    examples: [
      {
        language: 'pycon',
        line: ">>> fruits = ['orange', 'apple', 'pear', 'banana', 'kiwi', 'apple', 'banana']",
      },
    ],
    link: '/python/library/collections.html#collections.deque',
    chrome: SPHINX_CHROME,
  },
  {
    urlPath: '/rust/std/fs/struct.File.html',
    file: `${RUST_DOCS}/std/fs/struct.File.html`,
    title: /^File in std::fs - Rust$/,
    container: '#main-content',
    examples: [
      { language: 'rust', line: 'pub struct File { /* private fields */ }' },
      { language: 'rust', line: '    let mut file = File::create("foo.txt")?;' },
    ],
    link: '/rust/std/fs/struct.OpenOptions.html',
    chrome: RUSTDOC_CHROME,
  },
  {
    urlPath: '/rust/std/vec/struct.Vec.html',
    file: `${RUST_DOCS}/std/vec/struct.Vec.html`,
    title: /^Vec in std::vec - Rust$/,
    container: '#main-content',
    examples: [
      { language: 'rust', line: 'let mut vec = Vec::new();' },
      { language: 'rust', line: 'pub struct Vec<T, A = Global> where' },
    ],
    link: '/rust/std/ops/trait.Index.html',
    chrome: RUSTDOC_CHROME,
  },
  {
    urlPath: '/rust/book/print.html',
    file: `${RUST_DOCS}/book/print.html`,
    title: /^The Rust Programming Language$/,
    container: '#content > main',
    examples: [
      { language: 'rust', line: '    println!("Hello, world!");' },
      { language: 'console', line: '$ cargo new hello_cargo' },
    ],
    table: ['| Number literals | Example |', '| --- | --- |', '| Decimal | `98_222` |'],
    link: '/rust/book/ch01-01-installation.html',
    chrome: MDBOOK_CHROME,
  },
];

/** toolgate's own pages in the shapes of Sphinx, rustdoc and mdBook, a few KB each. */
export const OWN_PAGES: DocPage[] = [
  {
    urlPath: '/own/sphinx-code.html',
    file: path.join(OWN_PAGES_DIR, 'sphinx-code.html'),
    title: /^tidecalc\.series — Tide series/,
    container: 'div.body[role=main]',
    examples: [
      { language: 'pycon', line: '>>> series(-10, step=2)' },
      { language: 'pycon', line: '[-10, -8, -6]' },
      { language: 'python', line: 'def _smooth(*heights):' },
      { language: 'pycon', line: '>>> len(series(0))' },
      { language: '', line: 'tidecalc --port brest --days 3 > brest.txt' },
      { language: 'python', line: 'print(s[0])' },
      { language: 'python', line: 'total = sum(s)' },
      { language: 'markdown', line: '```text' },
    ],
    table: ['| Kind | Step |', '| --- | --- |', '| `hourly` | 1 h |', '| `tidal` | 12 h 25 min |'],
    link: '/glossary.html#term-series',
    chrome: SPHINX_CHROME,
  },
  {
    urlPath: '/own/rustdoc.html',
    file: path.join(OWN_PAGES_DIR, 'rustdoc.html'),
    title: /^Harbour in tide::port - Rust$/,
    container: '#main-content',
    examples: [
      { language: 'rust', line: 'pub struct Harbour<B = Berth> where' },
      { language: 'rust', line: 'let mut harbour = Harbour::new("Brest");' },
      { language: 'rust', line: 'assert!(r.is_err());' },
    ],
    link: '/tides/fn.next_high.html',
    chrome: [...RUSTDOC_CHROME, 'Notable traits', 'Methods'],
  },
  {
    urlPath: '/own/mdbook.html',
    file: path.join(OWN_PAGES_DIR, 'mdbook.html'),
    title: /^Mooring - The Tide Book$/,
    container: '#content > main',
    examples: [
      { language: 'rust', line: '#![allow(unused)]' },
      { language: 'rust', line: '    let mut harbour = Harbour::new("Brest");' },
      { language: 'console', line: '$ cargo run' },
      { language: 'rust', line: 'let s = r"a ``` fence";' },
    ],
    link: '/own/ch02-00-tides.html',
    chrome: [...MDBOOK_CHROME, 'Getting started'],
  },
];

/** Whether the installed documentation is on this machine (always in CI). */
export const installed = INSTALLED_PAGES.every((page) => existsSync(page.file));

/** The fenced blocks of a Markdown text (inside quotes and list items too), with their language. */
export function fencedBlocks(markdown: string): { language: string; lines: string[] }[] {
  const blocks: { language: string; lines: string[] }[] = [];
  let open: { fence: string; prefix: number; block: { language: string; lines: string[] } } | undefined;
  for (const raw of markdown.split('\n')) {
    const prefix = /^(?:> ?| )*/.exec(raw)?.[0].length ?? 0;
    const line = raw.slice(prefix);
    if (open) {
      if (line === open.fence) open = undefined;
      else open.block.lines.push(raw.slice(Math.min(open.prefix, prefix)));
      continue;
    }
    const start = /^(`{3,})([^`\s]*)$/.exec(line);
    if (start) {
      const block = { language: start[2] ?? '', lines: [] };
      blocks.push(block);
      open = { fence: start[1] ?? '```', prefix, block };
    }
  }
  return blocks;
}
