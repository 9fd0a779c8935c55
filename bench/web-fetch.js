// web_fetch of a 1 MB HTML page from a local server against undici's own fetch + text() of the
// same page (issue #15): the price of the guard, the conversion to Markdown and the pipeline.
// Then real documentation pages (issue #33: Debian's python3-doc and rust-doc), web_fetch as
// Markdown end to end and pageToText alone, each against linkedom parsing the same page.

import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
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

/** The real pages: about 0.7, 0.9 and 1.7 MB, the sizes a model fetches documentation at. */
const DOC_PAGES = [
  ['Python stdtypes.html (Sphinx)', '/usr/share/doc/python3-doc/html/library/stdtypes.html'],
  ['Rust std::vec::Vec (rustdoc)', '/usr/share/doc/rust-doc/html/std/vec/struct.Vec.html'],
  ['Rust book print.html (mdBook)', '/usr/share/doc/rust-doc/html/book/print.html'],
];

function gateFor(port) {
  return createToolgate({
    config: validateConfig({
      tools: {
        approval: { allowlist: ['web_fetch'] },
        web: { allow_private: [`127.0.0.1:${port}`], max_download_bytes: 4_000_000 },
        output: { max_bytes: 4_000_000 },
      },
    }),
    roots: [realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-web-')))],
    approver: approveAll,
  });
}

/**
 * linkedom's parse and pageToText of one page, each the median of `rounds`, timed in a thread of
 * their own as web_fetch's converter is (this process's heap, grown by the rows before, slowed a
 * 1.7 MB parse here fivefold).
 */
function timeInThread(html, url, rounds) {
  const code = `
    const { parentPort, workerData: w } = require('node:worker_threads');
    const { performance } = require('node:perf_hooks');
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    Promise.all([import(w.linkedom), import(w.converter)]).then(([{ parseHTML }, { pageToText }]) => {
      const parse = [];
      const convert = [];
      for (let i = 0; i < w.rounds + 2; i++) {
        let t = performance.now();
        parseHTML(w.html);
        if (i >= 2) parse.push(performance.now() - t);
        t = performance.now();
        pageToText(w.html, w.url, 'markdown');
        if (i >= 2) convert.push(performance.now() - t);
      }
      parentPort.postMessage({ parse: median(parse), convert: median(convert) });
    });`;
  const worker = new Worker(code, {
    eval: true,
    workerData: {
      html,
      url,
      rounds,
      linkedom: import.meta.resolve('linkedom'),
      converter: new URL('../dist/tools/web/page-to-text.js', import.meta.url).href,
    },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (m) => {
      void worker.terminate();
      resolve(m);
    });
    worker.once('error', reject);
  });
}

/** Per page: web_fetch as Markdown, and pageToText alone, each beside linkedom's parseHTML of the page. */
export async function docPagesBench({ rounds = 9 } = {}) {
  const rows = [];
  for (const [name, file] of DOC_PAGES) {
    if (!existsSync(file)) {
      console.log(
        `web_fetch documentation row skipped: ${file} is not installed (apt-get install python3-doc rust-doc)`,
      );
      continue;
    }
    const html = readFileSync(file, 'utf8');
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address();
    const url = `http://127.0.0.1:${port}/${path.basename(file)}`;
    const gate = gateFor(port);
    const fetched = [];
    for (let i = 0; i < rounds + 2; i++) {
      const t = performance.now();
      const [r] = await gate.execute([{ id: '1', name: 'web_fetch', arguments: { url } }]);
      if (!r.ok) throw new Error(r.content);
      if (i >= 2) fetched.push(performance.now() - t);
    }
    const alone = await timeInThread(html, url, rounds);
    server.close();
    const ms = (x) => `${x.toFixed(0)} ms`;
    const kb = `${(html.length / 1e3).toFixed(0)} KB`;
    rows.push(
      [
        `web_fetch: ${name}, ${kb}, as Markdown from a local server (end to end), median of ${rounds}`,
        ms(median(fetched)),
        `linkedom parseHTML alone ${ms(alone.parse)}`,
        `${(median(fetched) / alone.parse).toFixed(1)}×`,
        '≤ 3×',
      ],
      [
        `pageToText alone (the conversion, no fetch or pipeline): ${name}`,
        ms(alone.convert),
        `linkedom parseHTML alone ${ms(alone.parse)}`,
        `${(alone.convert / alone.parse).toFixed(1)}×`,
        '≤ 3×',
      ],
    );
  }
  return rows;
}

export async function webFetchBench({ rounds = 15 } = {}) {
  const body = page();
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/manual`;
  const gate = gateFor(server.address().port);
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
    ...(await docPagesBench()),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await webFetchBench()) console.log(`| ${row.join(' | ')} |`);
}
