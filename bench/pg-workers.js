// Issue #17 figures: batches per second through 1, 2 and 4 worker processes on one PostgreSQL
// journal (read-only no-op calls; write_file calls), and the time from an answer (`approvals
// approve`, here the same journal call) to the waiting worker resuming, on PostgreSQL (LISTEN/NOTIFY)
// and on SQLite (backed-off looks).
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { remoteApprover } from '../dist/approval/remote-approver.js';
import { previewHash } from '../dist/core/preview-hash.js';
import { createToolgate, defineTool, validateConfig } from '../dist/index.js';
import { PostgresJournal } from '../dist/journal/postgres/postgres-journal.js';
import { SqliteJournal } from '../dist/journal/sqlite-journal.js';
import { startPostgres } from './postgres-server.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SECONDS = 4;

function runWorker(url, kind) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(HERE, 'pg-load-worker.mjs'), url, kind, String(SECONDS)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.once('exit', (code) =>
      code === 0 ? resolve(Number(out.trim())) : reject(new Error(`worker exited ${code}`)),
    );
  });
}

async function throughput(server) {
  const rows = [];
  for (const kind of ['read', 'write']) {
    const cells = [];
    for (const workers of [1, 2, 4]) {
      const url = server.createDatabase();
      const counts = await Promise.all(Array.from({ length: workers }, () => runWorker(url, kind)));
      cells.push(`${workers}: ${Math.round(counts.reduce((a, b) => a + b, 0) / SECONDS)}/s`);
    }
    rows.push([
      `PostgreSQL journal: batches/s through 1, 2, 4 worker processes on one database (${kind === 'read' ? 'one read-only no-op call' : 'one write_file call'} per batch, ${SECONDS} s each)`,
      cells.join(', '),
      '—',
      '—',
      '—',
    ]);
  }
  return rows;
}

const pct = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

/** ms from an answer's commit to the waiting worker's tool starting, `rounds` times. */
async function approvalLatency(waiting, answering, rounds) {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-approve-')));
  let started = 0;
  const act = defineTool({
    name: 'act',
    description: 'a side effect that asks',
    args: z.strictObject({}),
    tier: 'side_effecting',
    summary: () => 'act',
    execute: () => {
      started = performance.now();
      return 'done';
    },
  });
  const gate = createToolgate({
    config: validateConfig({ tools: { approval: { timeout_seconds: 60 } } }),
    roots: [root],
    tools: [act],
    builtins: false,
    journal: waiting,
    approver: remoteApprover(waiting),
  });
  const times = [];
  for (let i = 0; i < rounds; i++) {
    const run = gate.execute([{ id: `a${i}`, name: 'act', arguments: {} }]);
    let pending = answering.pendingApprovals()[0];
    while (!pending) {
      await new Promise((r) => setTimeout(r, 5));
      pending = answering.pendingApprovals()[0];
    }
    // The worker asleep, waiting; answered at a random moment of its backed-off looks.
    await new Promise((r) => setTimeout(r, 100 + Math.random() * 300));
    const answered = performance.now();
    answering.answerApproval({
      batchId: pending.batchId,
      index: pending.index,
      approved: true,
      preview: previewHash(pending.request),
      by: 'bench',
    });
    await run;
    times.push(started - answered);
  }
  await gate.close();
  return times;
}

export async function pgWorkersBench() {
  const server = startPostgres();
  try {
    const rows = await throughput(server);
    const url = server.createDatabase();
    const waiting = PostgresJournal.open(url);
    const answering = PostgresJournal.open(url);
    const pg = await approvalLatency(waiting, answering, 40);
    waiting.close();
    answering.close();
    const file = path.join(realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-sq-'))), 'j.db');
    const sq = await approvalLatency(SqliteJournal.open(file), SqliteJournal.open(file), 40);
    rows.push([
      'approval answered → waiting worker resumes (its tool starts), 40 answers: PostgreSQL (LISTEN/NOTIFY) / SQLite (looks ≤ 80 ms apart)',
      `median ${pct(pg, 50).toFixed(1)} ms, p99 ${pct(pg, 99).toFixed(1)} ms / median ${pct(sq, 50).toFixed(1)} ms, p99 ${pct(sq, 99).toFixed(1)} ms`,
      '—',
      '—',
      '≤ 100 ms (issue #17)',
    ]);
    return rows;
  } finally {
    server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await pgWorkersBench()) console.log(`| ${row.join(' | ')} |`);
}
