// web_fetch of a 1 MB HTML page from a local server against undici's own fetch + text() of the
// same page (issue #15): the price of the guard, the conversion to Markdown and the pipeline.

import { mkdtempSync, realpathSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fetch } from 'undici';
import { approveAll, createToolgate, validateConfig } from '../dist/index.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function page() {
  const sections = [];
  for (let i = 0, size = 0; size < 1_000_000; i++) {
    size +=
      sections[
        sections.push(
          `<section><h2>Section ${i}</h2><p>Paragraph ${i} of the manual, with <a href="/p/${i}">a link</a> and <code>code ${i}</code>. ${'Words that say something about tides and harbours. '.repeat(8)}</p><ul><li>one</li><li>two</li></ul></section>`,
        ) - 1
      ].length;
  }
  return `<!doctype html><html><head><title>Manual</title></head><body><nav>menu</nav><article>${sections.join('\n')}</article></body></html>`;
}

export async function webFetchBench({ rounds = 15 } = {}) {
  const body = page();
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/manual`;
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-web-')));
  const gate = createToolgate({
    config: validateConfig({
      tools: {
        approval: { allowlist: ['web_fetch'] },
        web: { allow_private: [`127.0.0.1:${server.address().port}`], max_download_bytes: 4_000_000 },
        output: { max_bytes: 4_000_000 },
      },
    }),
    roots: [root],
    approver: approveAll,
  });
  const ours = [];
  const ref = [];
  const markdownOnly = [];
  let size = 0;
  for (let i = 0; i < rounds + 2; i++) {
    let t = performance.now();
    const [r] = await gate.execute([{ id: '1', name: 'web_fetch', arguments: { url } }]);
    if (!r.ok) throw new Error(r.content);
    size = r.content.length;
    if (i >= 2) ours.push(performance.now() - t);
    t = performance.now();
    const text = await (await fetch(url)).text();
    if (text.length !== body.length) throw new Error('reference fetch read a different page');
    if (i >= 2) ref.push(performance.now() - t);
    t = performance.now();
    const [raw] = await gate.execute([
      { id: '2', name: 'web_fetch', arguments: { url, format: 'html', selector: 'article' } },
    ]);
    if (!raw.ok) throw new Error(raw.content);
    if (i >= 2) markdownOnly.push(performance.now() - t);
  }
  server.close();
  const ms = (x) => `${x.toFixed(1)} ms`;
  return [
    [
      `web_fetch: a ${(body.length / 1e6).toFixed(1)} MB HTML page from a local server, as Markdown (${(size / 1e6).toFixed(2)} MB out), median of ${rounds}`,
      ms(median(ours)),
      `undici fetch + text() ${ms(median(ref))}`,
      `${(median(ours) / median(ref)).toFixed(1)}×`,
      '—',
    ],
    [
      'web_fetch: the same page, `selector: "article"`, `format: "html"` (no Readability, no Markdown)',
      ms(median(markdownOnly)),
      `undici fetch + text() ${ms(median(ref))}`,
      `${(median(markdownOnly) / median(ref)).toFixed(1)}×`,
      '—',
    ],
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await webFetchBench()) console.log(`| ${row.join(' | ')} |`);
}
