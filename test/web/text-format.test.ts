import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pageToText } from '../../src/tools/web/page-to-text.js';

const PAGES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'web-pages');
const page = (name: string) => readFileSync(path.join(PAGES, `${name}.html`), 'utf8');

/**
 * web_fetch `format: "text"` (seed 001 §Web Tools): plain text a model can read, with the page's
 * blocks apart. textContent alone ran a heading, a code signature and its paragraph together
 * ("…::HarbourStruct…pub struct…"), and a code block's lines into one.
 */
describe('web_fetch format "text": blocks on lines of their own, code as written (issue #33)', () => {
  it('a rustdoc page: the heading, the declaration with its line break, an example line by line', () => {
    const { text } = pageToText(
      page('rustdoc'),
      'https://docs.example/tide/port/struct.Harbour.html',
      'text',
    );
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^Struct tide::port::Harbour/);
    // <br> inside the declaration is its line break; &nbsp; a space
    expect(text).toContain('pub struct Harbour<B = Berth> where\n    B: Mooring,');
    expect(lines).toContain('let mut harbour = Harbour::new("Brest");');
    expect(text).not.toContain('Copy item path');
  });

  it('a Sphinx page: console and numbered code kept line by line without their line numbers, table rows as lines of cells', () => {
    const { text } = pageToText(page('sphinx-code'), 'https://docs.example/series.html', 'text');
    expect(text).toContain('>>> series(-10, step=2)');
    expect(text).not.toMatch(/\\>>>|\\-10/);
    // the numbered block: its code, not "1 2" beside it
    expect(text).toMatch(/^s = series\(0\)$/m);
    expect(text).not.toMatch(/^1\s*2\s*$/m);
    expect(text).not.toMatch(/^1total/m);
    // a table row is one line, its cells apart by a tab
    const row = text.split('\n').find((line) => line.includes('\t'));
    expect(row, text).toBeDefined();
    expect(row?.split('\t').length).toBeGreaterThan(1);
    // paragraphs apart by one empty line, never more
    expect(text).not.toMatch(/\n{3,}/);
    expect(text).not.toMatch(/[ \t]$/m);
  });
});
