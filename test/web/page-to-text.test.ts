import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { pageToText } from '../../src/tools/web/page-to-text.js';
import { makeTempDir } from '../helpers/workspace.js';

const PAGES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'web-pages');
const page = (name: string) => readFileSync(path.join(PAGES, `${name}.html`), 'utf8');
const BASE = 'https://site.example/section/';

/** Readability + the Markdown walk on pages written like real ones (news article, Sphinx docs, tables), checked by content. */
describe('web_fetch content: HTML pages as readable Markdown (issue #15)', () => {
  it('a news article: the story, its headline and byline; no cookie banner, navigation, share buttons, comments or footer', () => {
    const r = pageToText(page('article'), `${BASE}dredging.html`, 'markdown');
    expect(r.title).toBe('Harbour dredging to start in March');
    expect(r.byline).toMatch(/Ana Ribeiro/);
    expect(r.text).toContain('Work to deepen the harbour entrance will begin on **2 March**');
    expect(r.text).toContain(
      '[published dredging plan](https://site.example/documents/dredging-plan-2026.pdf)',
    );
    expect(r.text).toContain(
      '![The dredger Vlieland moored at the north quay](https://site.example/images/dredger-2026.jpg)',
    );
    expect(r.text).toMatch(/^> "Every pilot in this port/m);
    expect(r.text).toContain('## What changes for boat owners');
    expect(r.text).toMatch(/^- +Phase two \(April\): the inner basin, north side\.$/m);
    for (const noise of [
      'cookies',
      'Accept all',
      'Subscribe for',
      'Share on X',
      'saltydog',
      'Comments (48)',
      'All rights reserved',
      'dataLayer',
      'Related stories',
    ])
      expect(r.text, noise).not.toContain(noise);
  });

  it('a Sphinx docs page: headings without permalink marks, fenced code with its language, inline code, the note; no sidebar or search box', () => {
    const r = pageToText(page('docs'), `${BASE}harmonics.html`, 'markdown');
    expect(r.text).toContain('## Quick start\n');
    expect(r.text).toContain('## Reference\n');
    expect(r.text).not.toContain('¶');
    expect(r.text).toContain('```python\nfrom tidecalc.harmonics import Constituents, predict\n');
    expect(r.text).toContain('print(predict(brest, "2026-03-02T06:00Z"))  # metres above chart datum\n```');
    expect(r.text).toContain('with `predict()`:');
    expect(r.text).toContain('Predictions ignore the weather.');
    expect(r.text).toContain('[chart datum](https://site.example/section/datum.html#chart-datum)');
    expect(r.text).toContain('Raises `ValueError` if _when_ has no time zone.');
    for (const noise of ['Quick search', 'Table of Contents', 'Previous topic', 'Created using', 'genindex'])
      expect(r.text, noise).not.toContain(noise);
  });

  it('a table-heavy page: pipe tables with header rows, a pipe inside a cell escaped, links kept absolute, the caption kept', () => {
    const r = pageToText(page('tables'), `${BASE}brest.html`, 'markdown');
    expect(r.text).toContain('High and low water, 2–4 March 2026');
    expect(r.text).toContain(
      [
        '| Day | Low water | Height | High water | Height |',
        '| --- | --- | --- | --- | --- |',
        '| Mon 2 Mar | 00:41 | 1.2 m | 06:58 | 6.9 m |',
      ].join('\n'),
    );
    expect(r.text).toMatch(
      /\| 2 Mar \| 94 +\| 98 +\| springs \\\| take care at the \[Goulet\]\(https:\/\/site\.example\/hazards\/goulet\) \|/,
    );
    expect(r.text).toContain('| [Le Conquet](https://site.example/france/le-conquet) | −10 min |');
    expect(r.text).not.toContain('Not for navigation');
    // every row of a table has as many cells as its header
    for (const table of r.text.split('\n\n').filter((b) => b.startsWith('|'))) {
      const widths = table.split('\n').map((row) => row.replace(/\\\|/g, '').split('|').length);
      expect(new Set(widths).size, table).toBe(1);
    }
    // text and selector work on the same pages
    const text = pageToText(page('tables'), `${BASE}brest.html`, 'text');
    expect(text.text).toContain('Mon 2 Mar');
    expect(text.text).not.toContain('| ---');
    const one = pageToText(page('tables'), `${BASE}brest.html`, 'markdown', 'table.coefficients');
    expect(one.text.split('\n')[0]).toBe('| Date | Morning | Evening | Notes |');
    expect(one.text).not.toContain('Mon 2 Mar');
  });

  it('through web_fetch from a local server: the headline, the byline and the source head the page', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page('article'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const gate = createToolgate({
        config: validateConfig({
          tools: { approval: { allowlist: ['web_fetch'] }, web: { allow_private: [`127.0.0.1:${port}`] } },
        }),
        roots: [makeTempDir('toolgate-pages-')],
        approver: approveAll,
      });
      const [r] = await gate.execute([
        { id: '1', name: 'web_fetch', arguments: { url: `http://127.0.0.1:${port}/news/dredging` } },
      ]);
      expect(r?.ok).toBe(true);
      expect(r?.content).toMatch(
        new RegExp(
          `^# Harbour dredging to start in March\\n.*Ana Ribeiro.*\\nSource: http://127\\.0\\.0\\.1:${port}/news/dredging\\n\\n`,
        ),
      );
      expect(r?.content).toContain(`(http://127.0.0.1:${port}/documents/dredging-plan-2026.pdf)`);
    } finally {
      server.close();
    }
  });
});
