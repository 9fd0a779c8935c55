import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { approveAll } from '../../src/core/confirmation.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate } from '../../src/toolgate.js';
import { journalWith } from '../helpers/journal-with.js';
import { testTool } from '../helpers/tools.js';
import { makeTempDir } from '../helpers/workspace.js';

/** A side effect that never finishes: its worker is as good as dead while it runs. */
const stall = testTool('stall', () => new Promise<string>(() => {}), { tier: 'side_effecting' });

/**
 * A batch taken over from a worker that died (issue #17 §2; review lead M1): what its first worker
 * committed, and a call whose outcome is unknown, are what the model is told even when the new
 * worker's journal fails before it can run anything; "not executed" is only for what never ran.
 */
describe('a batch taken over keeps the results known before the takeover', () => {
  for (const method of ['sync', 'markApproved'] as const)
    it(`the journal failing at ${method} around the question in a takeover: the committed result and the unknown outcome stand; only the unstarted call is "not executed"`, async () => {
      const root = makeTempDir('toolgate-takeover-');
      const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
      try {
        // Worker A writes a.txt (committed), starts `stall` and is never heard of again: its lease
        // is not renewed and runs out.
        const a = createToolgate({
          roots: [root],
          baseDir: root,
          tools: [stall],
          journal: journalWith(sqlite, { renewLease: () => true }),
          approver: approveAll,
          lease: { worker: 'a', ttlMs: 100 },
        });
        let stalled!: () => void;
        const started = new Promise<void>((resolve) => {
          stalled = resolve;
        });
        void a.execute(
          [
            { id: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } },
            { id: '2', name: 'stall', arguments: {} },
            { id: '3', name: 'write_file', arguments: { path: 'c.txt', content: 'c' } },
          ],
          { onEvent: (e) => void (e.type === 'started' && e.callId === '2' && stalled()) },
        );
        await started;
        await sleep(250);
        const record = sqlite.claimExpiredBatch({ worker: 'b', ttlMs: 60_000 });
        expect(record?.calls.map((c) => c.status)).toEqual(['done', 'running', 'approved']);
        const committed = record?.calls[0]?.result;
        expect(committed?.ok).toBe(true);

        // Worker B takes it over; c.txt needs asking, and its journal fails at the fsync before that
        // or when the answer is recorded.
        const error = new Error('disk I/O error (test)');
        const b = createToolgate({
          roots: [root],
          baseDir: root,
          tools: [stall],
          journal: journalWith(
            sqlite,
            method === 'sync'
              ? { sync: () => Promise.reject(error) }
              : {
                  markApproved: () => {
                    throw error;
                  },
                },
          ),
          approver: approveAll,
          lease: { worker: 'b', ttlMs: 60_000 },
        });
        const results = await b.takeOver(record as NonNullable<typeof record>);
        expect(results[0]).toEqual(committed);
        expect(results[1]?.ok).toBe(false);
        expect(results[1]?.content).toMatch(/outcome unknown/);
        expect(results[1]?.content).not.toMatch(/not executed/);
        expect(results[2]?.content).toMatch(/not executed: disk I\/O error \(test\)/);
        expect(existsSync(path.join(root, 'c.txt'))).toBe(false);
        // The journal agrees: nothing left to run later.
        const batch = sqlite.batch(record?.id as string);
        expect(batch?.calls.map((c) => c.status)).toEqual(['done', 'unknown', 'not_run']);
        expect(sqlite.incompleteBatches()).toEqual([]);
      } finally {
        sqlite.close();
      }
    });
});
