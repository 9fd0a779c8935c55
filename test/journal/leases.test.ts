import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { defineTool } from '../../src/core/define-tool.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/** The pipeline's side of leases (issue #17 §2), on a real SQLite journal shared by two connections. */
describe('leases in the pipeline', () => {
  const setup = () => {
    const root = makeTempDir('toolgate-lease-');
    const file = path.join(root, 'journal.db');
    return { root, file, mine: SqliteJournal.open(file), theirs: SqliteJournal.open(file) };
  };
  const config = validateConfig({ tools: { approval: { mode: 'auto' } } });

  it('a batch is leased to its worker and renewed while a call runs past the lease length; nobody can claim it meanwhile', async () => {
    const { root, mine, theirs } = setup();
    const claims: unknown[] = [];
    const slow = defineTool({
      name: 'slow_write',
      description: 'waits, then writes',
      args: z.strictObject({}),
      tier: 'side_effecting',
      summary: () => 'slow write',
      execute: async () => {
        // 1.25 s, twice the lease: it is renewed (every 200 ms), with room for a stalled event loop.
        for (let i = 0; i < 5; i++) {
          await new Promise((r) => setTimeout(r, 250));
          claims.push(theirs.claimExpiredBatch({ worker: 'thief', ttlMs: 60_000 }));
        }
        return 'written';
      },
    });
    const gate = createToolgate({
      config,
      roots: [root],
      tools: [slow],
      builtins: false,
      journal: mine,
      approver: approveAll,
      lease: { worker: 'worker-a', ttlMs: 600 },
    });
    const [r] = await gate.execute([{ id: 's', name: 'slow_write', arguments: {} }]);
    expect(r?.ok).toBe(true);
    expect(claims).toEqual([undefined, undefined, undefined, undefined, undefined]);
    const [summary] = theirs.recentBatches(1);
    const batch = theirs.batch(summary?.id ?? '');
    expect(batch?.owner).toBeDefined();
    expect(batch?.status).toBe('complete');
  });

  it('a worker whose lease ran out starts nothing more of the batch; what it told its caller did not run is settled as not run, so nobody runs it later', async () => {
    const { root, mine, theirs } = setup();
    let counted = 0;
    const freeze = defineTool({
      name: 'freeze',
      description: 'blocks the event loop (a stalled worker)',
      args: z.strictObject({}),
      tier: 'side_effecting',
      summary: () => 'freeze',
      execute: () => {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
        return 'thawed';
      },
    });
    const count = defineTool({
      name: 'count',
      description: 'a side effect that must happen once',
      args: z.strictObject({}),
      tier: 'side_effecting',
      summary: () => 'count',
      execute: () => `count ${++counted}`,
    });
    const gate = createToolgate({
      config,
      roots: [root],
      tools: [freeze, count],
      builtins: false,
      journal: mine,
      approver: approveAll,
      lease: { worker: 'worker-a', ttlMs: 200 },
    });
    const results = await gate.execute([
      { id: 'f', name: 'freeze', arguments: {} },
      { id: 'c', name: 'count', arguments: {} },
    ]);
    expect(results[0]?.ok).toBe(true);
    expect(results[1]?.ok).toBe(false);
    expect(results[1]?.content).toMatch(/no longer holds the lease/);
    expect(counted).toBe(0);
    // Nobody had taken it yet: the worker settles what it told its caller did not run, so no
    // worker runs it later behind the caller's back.
    expect(theirs.claimExpiredBatch({ worker: 'worker-b', ttlMs: 60_000 })).toBeUndefined();
    const [summary] = theirs.recentBatches(1);
    const batch = theirs.batch(summary?.id ?? '');
    expect(batch?.status).toBe('resumed');
    expect(batch?.calls.map((c) => [c.id, c.status])).toEqual([
      ['f', 'done'],
      ['c', 'not_run'],
    ]);
  });
});
