import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { makeTempDir } from '../helpers/workspace.js';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'crash-worker.mjs');
const KILLS = Number(process.env.TOOLGATE_CRASH_KILLS ?? 50);

/** Starts the worker and kills it `afterMs` after it says it is ready (or after 20 s regardless). */
function runAndKill(root: string, journal: string, counter: string, afterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WORKER, root, journal, counter], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.once('data', () => {
      clearTimeout(timer);
      timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A complete version of big.txt, never a torn one. */
function checkBig(text: string): void {
  const m = /^version (\S+)\nx+\nend (\S+)\n$/.exec(text);
  expect(m, `big.txt is partial (${text.length} bytes)`).not.toBeNull();
  expect(m?.[1]).toBe(m?.[2]);
  expect(text.length).toBe(`version ${m?.[1]}\n`.length + 256 * 1024 + `\nend ${m?.[1]}\n`.length);
}

describe('crash recovery: SIGKILL at random moments, read-only, side-effecting and mixed batches (IT-JRN-01, IT-JRN-02)', () => {
  it(`${KILLS} kills: every committed result survives, no call runs twice, no file is partial`, async () => {
    const root = makeTempDir('toolgate-crash-');
    const journalFile = path.join(makeTempDir('toolgate-crash-journal-'), 'journal.db');
    const counter = path.join(makeTempDir('toolgate-crash-counter-'), 'counter.txt');
    writeFileSync(path.join(root, 'big.txt'), `version 0\n${'x'.repeat(256 * 1024)}\nend 0\n`);
    writeFileSync(path.join(root, 'p1.txt'), 'start\n');
    writeFileSync(path.join(root, 'p2.txt'), 'start\n');
    writeFileSync(counter, '');
    let resumedRunning = 0;
    let interruptedBatches = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      // From "at the first batch" to "many batches in", timed from when the worker is ready.
      await runAndKill(root, journalFile, counter, Math.floor(Math.random() * 400));

      const journal = SqliteJournal.open(journalFile);
      try {
        const lines = readFileSync(counter, 'utf8').split('\n').filter(Boolean);
        // No call executed twice.
        expect(new Set(lines).size).toBe(lines.length);
        const counted = new Set(lines);
        const incomplete = journal.incompleteBatches();
        interruptedBatches += incomplete.length;
        // A read-only batch is journaled whole after it ran: it is complete or absent, never half.
        for (const batch of incomplete)
          expect(
            batch.calls.some((c) => c.name !== 'read_file'),
            'a read-only batch left incomplete',
          ).toBe(true);
        for (const batch of journal.recentBatches(1_000_000)) {
          const record = journal.batch(batch.id);
          for (const call of record?.calls ?? []) {
            if (call.name !== 'append_counter') continue;
            const tag = `${call.id}`;
            // A call with a committed ok result really happened (exactly once: checked above).
            if (call.status === 'done' && call.result?.ok)
              expect(counted.has(tag), `${tag} done but not counted`).toBe(true);
            // A call that never reached `running` never ran: journaled-before-run holds.
            if (call.status === 'planned' || call.status === 'approved')
              expect(counted.has(tag), `${tag} ran unrecorded`).toBe(false);
          }
        }
        // Recovery: never re-run; running → unknown, unstarted → not executed, results kept.
        for (const batch of incomplete) {
          const before = journal.batch(batch.id);
          const results = journal.resumeBatch(batch.id);
          expect(results).toHaveLength(before?.calls.length ?? -1);
          before?.calls.forEach((call, i) => {
            if (call.result) expect(results[i]).toEqual(call.result);
            else if (call.status === 'running') {
              resumedRunning++;
              expect(results[i]?.error?.message).toMatch(/^outcome unknown: interrupted/);
            } else
              expect(results[i]?.error?.message).toBe(
                'not executed: toolgate stopped before this call started (it never ran)',
              );
          });
        }
        expect(journal.incompleteBatches()).toEqual([]);
        // Recovery ran nothing: the counter did not move.
        expect(readFileSync(counter, 'utf8').split('\n').filter(Boolean)).toEqual(lines);
        // No file is partial.
        checkBig(readFileSync(path.join(root, 'big.txt'), 'utf8'));
        for (const p of ['p1.txt', 'p2.txt'])
          expect(readFileSync(path.join(root, p), 'utf8')).toMatch(/^\S+\n$/);
        const leftovers = (await import('node:fs')).readdirSync(root).filter((f) => f.includes('.toolgate-'));
        // A temp file may be left by a kill mid-write, but never in place of the real file.
        for (const f of leftovers) expect(f).toMatch(/^\.(big|p1|p2)\.txt\.toolgate-[0-9a-f]+\.tmp$/);
      } finally {
        journal.close();
      }
    }
    const started = readFileSync(path.join(root, '.started'), 'utf8').split('\n').filter(Boolean).length;
    expect(started).toBe(KILLS); // every run got going before its kill
    expect(interruptedBatches).toBeGreaterThan(0); // and kills did land mid-batch
    // All three kinds of batch were journaled: read-only, side effects, mixed.
    const journal = SqliteJournal.open(journalFile);
    const kinds = new Set(
      journal.recentBatches(1_000_000).map((b) => {
        const names = new Set(journal.batch(b.id)?.calls.map((c) => c.name));
        return names.size === 1 && names.has('read_file')
          ? 'read-only'
          : names.has('read_file')
            ? 'mixed'
            : 'effects';
      }),
    );
    journal.close();
    expect([...kinds].sort()).toEqual(['effects', 'mixed', 'read-only']);
    expect(existsSync(journalFile)).toBe(true);
    console.info(
      `crash test: ${KILLS} kills, ${started} runs started, ${interruptedBatches} batches interrupted, ${resumedRunning} calls with unknown outcome`,
    );
  }, 240_000);
});
