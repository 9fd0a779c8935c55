// The memory tool's search over 10,000 notes (issue #15): FTS5 (BM25) through the pipeline, against
// the same FTS5 query run on the store directly.
import { mkdtempSync, realpathSync } from 'node:fs';
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
  for (let i = 0; i < notes; i++) {
    const words = Array.from({ length: 30 }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(' ');
    store.set('project', `note-${i}`, `${words} number ${i}`);
  }
  const gate = createToolgate({ config: validateConfig({ tools: { memory: { file } } }), roots: [root] });
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
    store.search('project', query, 5);
    direct.push(performance.now() - t);
  }
  await gate.close();
  store.close();
  return [
    [
      `memory: search over ${notes.toLocaleString('en')} notes (FTS5, BM25; no embeddings configured), median of ${rounds}`,
      `${median(ours).toFixed(2)} ms`,
      `the same FTS5 query on the store ${median(direct).toFixed(2)} ms`,
      `${(median(ours) / median(direct)).toFixed(1)}×`,
      '—',
    ],
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await memorySearchBench()) console.log(`| ${row.join(' | ')} |`);
}
