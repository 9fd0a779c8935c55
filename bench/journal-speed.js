// The journal's price (docs/DURABILITY.md): durable commits against raw write+fsync of the same
// disk, and the journal's overhead per call for read-only and side-effecting calls.
import { closeSync, fsyncSync, mkdtempSync, openSync, realpathSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { createToolgate, defineTool, validateConfig } from '../dist/index.js';
import { SqliteJournal } from '../dist/journal/sqlite-journal.js';

const result = (i) => ({ id: `c${i}`, name: 'noop', ok: true, content: 'ok', error: null, latencyMs: 0 });

/**
 * Durable commits per second: each result committed and then synced, one writer or eight at once,
 * interleaved in rounds with raw write+fsync of the same disk so a noisy moment hits both.
 */
async function durableCommits(dir, rows) {
  const rounds = 12;
  const per = 30;
  const fd = openSync(path.join(dir, 'raw.bin'), 'w');
  const line = Buffer.alloc(200, 120);
  const journal = SqliteJournal.open(path.join(dir, 'journal.db'));
  const calls = Array.from({ length: rounds * per * 9 }, (_, i) => ({
    id: `c${i}`,
    name: 'noop',
    arguments: { n: i },
  }));
  const batch = journal.beginBatch('bench', calls);
  // Eight sessions, each with its batch open (as MCP sessions over HTTP would have), on a journal of their own.
  const shared = SqliteJournal.open(path.join(dir, 'shared.db'));
  const batches = Array.from({ length: 8 }, (_, k) => shared.beginBatch(`bench-${k}`, calls));
  let next = 0;
  // A journal in use: its WAL has been checkpointed and restarted, so commits overwrite blocks the
  // file already has (as in any long-running server) instead of growing it, which costs each
  // fdatasync a metadata update the first few thousand commits of a fresh file pay.
  const warm = Array.from({ length: 1500 }, (_, i) => result(i));
  for (const [i, r] of warm.entries()) journal.recordResult(batch, i % 100, r);
  for (const [i, r] of warm.entries()) shared.recordResult(batches[0], i % 100, r);
  await journal.sync();
  await shared.sync();
  const time = { raw: 0, one: 0, eight: 0 };
  for (let r = 0; r < rounds; r++) {
    let t = performance.now();
    for (let i = 0; i < per; i++) {
      writeSync(fd, line);
      fsyncSync(fd);
    }
    time.raw += performance.now() - t;
    t = performance.now();
    for (let i = 0; i < per; i++) {
      journal.recordResult(batch, next, result(next++));
      await journal.sync();
    }
    time.one += performance.now() - t;
    // Eight writers (MCP sessions over HTTP) committing at once: they share fsyncs.
    t = performance.now();
    for (let i = 0; i < per; i++) {
      await Promise.all(
        batches.map((b) => {
          shared.recordResult(b, next, result(next++));
          return shared.sync();
        }),
      );
    }
    time.eight += performance.now() - t;
  }
  closeSync(fd);
  journal.close();
  shared.close();
  const n = rounds * per;
  const rawPerSec = n / (time.raw / 1000);
  const onePerSec = n / (time.one / 1000);
  const eightPerSec = (n * 8) / (time.eight / 1000);
  rows.push([
    'journal: durable commits, one session (commit + fdatasync of the WAL, journal in use)',
    `${onePerSec.toFixed(0)} /s`,
    `raw write+fsync ${rawPerSec.toFixed(0)} /s`,
    `${(onePerSec / rawPerSec).toFixed(2)}×`,
    '≥ 0.8×',
  ]);
  rows.push([
    'journal: durable commits, eight sessions at once (group commit)',
    `${eightPerSec.toFixed(0)} /s`,
    `raw write+fsync ${rawPerSec.toFixed(0)} /s`,
    `${(eightPerSec / rawPerSec).toFixed(2)}×`,
    '≥ 0.8×',
  ]);
}

/** Per-call cost of the journal in the pipeline, for a no-op tool of each tier. */
async function pipelineOverhead(dir, rows) {
  const noop = (tier) =>
    defineTool({
      name: 'noop',
      description: 'd',
      args: z.strictObject({ n: z.number().int() }),
      tier,
      summary: () => 'noop',
      execute: async () => 'ok',
    });
  const config = validateConfig({ tools: { approval: { mode: 'auto' } } });
  const cases = [
    ['read_only', 8, 'read-only call, batches of 8', '≤ 30 µs'],
    ['read_only', 1, 'read-only call, one per batch (MCP)', '—'],
    ['side_effecting', 1, 'side-effecting call, one per batch (one fsync)', '—'],
  ];
  for (const [tier, size, label, budget] of cases) {
    const tool = noop(tier);
    const journal = SqliteJournal.open(path.join(dir, `pipeline-${tier}-${size}.db`));
    const withJournal = createToolgate({ config, builtins: false, tools: [tool], journal, roots: [dir] });
    const plain = createToolgate({ config, builtins: false, tools: [tool], roots: [dir] });
    const calls = Array.from({ length: size }, (_, i) => ({
      id: String(i),
      name: 'noop',
      arguments: { n: i },
    }));
    const per = async (gate, rounds) => {
      const start = performance.now();
      for (let i = 0; i < rounds; i++) await gate.execute(calls);
      return ((performance.now() - start) * 1000) / (rounds * size);
    };
    const rounds = tier === 'read_only' ? Math.ceil(4000 / size) : 300;
    await per(withJournal, 50);
    await per(plain, 2000);
    // Interleaved halves, so a noisy moment hits both sides.
    const j1 = await per(withJournal, rounds / 2);
    const p1 = await per(plain, 2000);
    const j2 = await per(withJournal, rounds / 2);
    const p2 = await per(plain, 2000);
    journal.close();
    const journaled = (j1 + j2) / 2;
    const bare = (p1 + p2) / 2;
    rows.push([
      `pipeline: journal overhead per ${label}`,
      `${journaled.toFixed(1)} µs`,
      `without journal ${bare.toFixed(1)} µs`,
      `overhead ${(journaled - bare).toFixed(1)} µs`,
      budget,
    ]);
  }
}

export async function journalSpeed() {
  // Same directory (so the same disk) for the raw fsync loop and the journal.
  const dir = realpathSync(mkdtempSync(path.join(process.cwd(), '.bench-journal-')));
  const rows = [];
  try {
    await durableCommits(dir, rows);
    await pipelineOverhead(dir, rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
