// The journal as an audit trail that lasts (issue #16 §9): bytes per 1,000 calls, and what
// `journal list`, `show`, `recover` and `export` do with 1,000,000 calls in the journal. The
// calls are written as the pipeline writes read-only batches (8 calls, one commit each), with
// results of a typical size; the queries are timed on the library (the CLI's start-up, ~150 ms,
// comes on top: see the start-up rows).
import { mkdtempSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SqliteJournal } from '../dist/journal/sqlite-journal.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const timed = (f, rounds = 9) => {
  const ms = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    f();
    ms.push(performance.now() - t);
  }
  return median(ms);
};

export async function journalScale({ calls = 1_000_000 } = {}) {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-journal-scale-')));
  const file = path.join(dir, 'journal.db');
  const journal = SqliteJournal.open(file);
  const content = 'x'.repeat(300); // a typical small result: a short file or a listing
  const t0 = performance.now();
  let middle;
  for (let b = 0; b < calls / 8; b++) {
    const batch = Array.from({ length: 8 }, (_, i) => ({
      id: `c${b}-${i}`,
      name: i % 2 ? 'grep' : 'read_file',
      arguments: { path: `src/module-${(b * 8 + i) % 997}.ts` },
    }));
    const now = Date.now();
    const id = journal.recordFinishedBatch(
      `session-${b % 50}`,
      batch,
      batch.map((c) => ({
        result: { id: c.id, name: c.name, ok: true, content, error: null, latencyMs: 1 },
        status: 'done',
        startedAt: now,
        finishedAt: now,
      })),
      { messages: false },
    );
    if (b === Math.floor(calls / 16)) middle = id;
  }
  const writeS = (performance.now() - t0) / 1000;
  journal.close();
  const bytes = ['', '-wal'].reduce((sum, ext) => {
    try {
      return sum + statSync(file + ext).size;
    } catch {
      return sum;
    }
  }, 0);
  const reopened = SqliteJournal.open(file);
  const list = timed(() => reopened.recentBatches(20));
  const show = timed(() => reopened.batch(middle));
  const prefix = timed(() => reopened.batchIdsStartingWith(middle.slice(0, 8), 5));
  const recover = timed(() => reopened.incompleteBatches());
  let exported = 0;
  const t1 = performance.now();
  for (const _ of reopened.exportCalls(Date.now() - 60 * 60 * 1000)) exported++;
  const exportS = (performance.now() - t1) / 1000;
  reopened.close();
  const n = calls.toLocaleString('en');
  return [
    [
      `journal: size per 1,000 calls (read-only batches of 8, 300-byte results), ${n} calls written in ${writeS.toFixed(0)} s`,
      `${(((bytes / calls) * 1000) / 1024).toFixed(0)} KiB`,
      `the results' own text ${((300 * 1000) / 1024).toFixed(0)} KiB`,
      `${(bytes / (calls * 300)).toFixed(1)}×`,
      '—',
    ],
    [
      `journal with ${n} calls: list (newest 20) / show (one batch) / show by id prefix / recover (incomplete batches), median of 9`,
      `${list.toFixed(2)} / ${show.toFixed(2)} / ${prefix.toFixed(2)} / ${recover.toFixed(2)} ms`,
      '—',
      '—',
      '≤ 100 ms each',
    ],
    [
      `journal with ${n} calls: export every call as JSON lines`,
      `${exportS.toFixed(1)} s (${Math.round(exported / exportS).toLocaleString('en')} calls/s)`,
      '—',
      '—',
      '—',
    ],
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await journalScale()) console.log(`| ${row.join(' | ')} |`);
}
