// The memory tool's search over 10,000 notes (issue #15): FTS5 (BM25) through the pipeline, against
// the same FTS5 query run on the store directly; then hybrid (vectors + FTS5) with memory_search and
// a local OpenAI-compatible embeddings server that answers at once (384 numbers per text, as
// all-MiniLM-L6-v2 gives), so the row shows toolgate's own cost: the query's embedding round trip,
// cosine over every note's vector, and the merge.
import { mkdtempSync, realpathSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createToolgate, validateConfig } from '../dist/index.js';
import { SqliteMemoryStore } from '../dist/tools/memory/memory-store.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const WORDS = [
  'tide',
  'harbour',
  'chart',
  'datum',
  'spring',
  'neap',
  'moon',
  'crossing',
  'pilot',
  'buoy',
  'channel',
  'depth',
];

export async function memorySearchBench({ notes = 10_000, rounds = 200 } = {}) {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-memory-')));
  const file = path.join(root, 'memory.db');
  const store = SqliteMemoryStore.open(file);
  const namespace = JSON.stringify(['project', 'bench']); // memory-namespace.ts: project and user
  for (let i = 0; i < notes; i++) {
    const words = Array.from({ length: 30 }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(' ');
    store.set(namespace, `note-${i}`, `${words} number ${i}`);
  }
  const gate = createToolgate({
    config: validateConfig({ tools: { memory: { file, user: 'bench' } } }),
    roots: [root],
  });
  const queries = ['tide datum', 'pilot buoy channel', 'spring moon', 'harbour depth crossing'];
  const ours = [];
  const direct = [];
  for (let i = 0; i < rounds; i++) {
    const query = queries[i % queries.length];
    let t = performance.now();
    const [r] = await gate.execute([
      { id: '1', name: 'memory', arguments: { action: 'search', query, limit: 5 } },
    ]);
    if (!r.ok) throw new Error(r.content);
    ours.push(performance.now() - t);
    t = performance.now();
    store.search(namespace, query, 5);
    direct.push(performance.now() - t);
  }
  await gate.close();
  store.close();

  const embeddings = await embeddingsServer();
  const hybrid = createToolgate({
    config: validateConfig({
      tools: { memory: { file, user: 'bench', embeddings: { url: embeddings.url, model: 'hash-384' } } },
    }),
    roots: [root],
  });
  // The first searches embed the notes saved before embeddings were configured (256 per search).
  let t = performance.now();
  for (;;) {
    const [r] = await hybrid.execute([{ id: '1', name: 'memory_search', arguments: { query: 'tide' } }]);
    if (!r.ok) throw new Error(r.content);
    if (!JSON.stringify(r.metadata ?? {}).includes('await embedding')) break;
  }
  const backfill = performance.now() - t;
  const mixed = [];
  for (let i = 0; i < rounds; i++) {
    const query = queries[i % queries.length];
    t = performance.now();
    const [r] = await hybrid.execute([{ id: '1', name: 'memory_search', arguments: { query, top_k: 5 } }]);
    if (!r.ok || r.metadata?.retrieval !== 'hybrid') throw new Error(r.content);
    mixed.push(performance.now() - t);
  }
  await hybrid.close();
  await embeddings.close();
  return [
    [
      `memory: search over ${notes.toLocaleString('en')} notes (FTS5, BM25; no embeddings configured), median of ${rounds}`,
      `${median(ours).toFixed(2)} ms`,
      `the same FTS5 query on the store ${median(direct).toFixed(2)} ms`,
      `${(median(ours) / median(direct)).toFixed(1)}×`,
      '—',
    ],
    [
      `memory_search: hybrid over ${notes.toLocaleString('en')} notes (384-number vectors from a local /v1/embeddings server + FTS5), median of ${rounds}`,
      `${median(mixed).toFixed(2)} ms`,
      `words only (row above) ${median(ours).toFixed(2)} ms`,
      `${(median(mixed) / median(ours)).toFixed(1)}×`,
      `embedding the ${notes.toLocaleString('en')} notes saved before: ${(backfill / 1000).toFixed(1)} s once`,
    ],
  ];
}

/** POST /v1/embeddings answering at once with a hashed bag of words, 384 numbers per text. */
async function embeddingsServer() {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const { input } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const data = input.map((text, index) => {
        const v = new Array(384).fill(0);
        for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
          let h = 0;
          for (const c of w) h = (h * 31 + c.charCodeAt(0)) >>> 0;
          v[h % 384] += 1;
        }
        return { object: 'embedding', index, embedding: v };
      });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1/embeddings`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await memorySearchBench()) console.log(`| ${row.join(' | ')} |`);
}
