// One worker of the SIGKILL test (issue #17 §2): on a shared PostgreSQL journal it takes over any
// batch whose lease ran out, else runs a new batch of its own: three side effects that append
// their call id to a counter file (so a call run twice would show) around a read. Killed at random.
// With `drain` it only takes over what has expired, then exits.

import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import { approveAll, createToolgate, defineTool, validateConfig } from '../../dist/index.js';
import { PostgresJournal } from '../../dist/journal/postgres/postgres-journal.js';

const [url, counterFile, mode] = process.argv.slice(2);
const journal = PostgresJournal.open(url);
const lease = { worker: `worker-${process.pid}-${randomUUID().slice(0, 6)}`, ttlMs: 400 };
const pause = () => new Promise((r) => setTimeout(r, 2 + Math.floor(Math.random() * 15)));
const count = defineTool({
  name: 'count',
  description: 'appends the call id to the counter file',
  args: z.strictObject({}),
  tier: 'side_effecting',
  summary: () => 'count',
  execute: async (_a, ctx) => {
    await pause();
    appendFileSync(counterFile, `${ctx.callId}\n`);
    await pause();
    return 'counted';
  },
});
const look = defineTool({
  name: 'look',
  description: 'a read',
  args: z.strictObject({}),
  tier: 'read_only',
  summary: () => 'look',
  execute: async () => {
    await pause();
    return 'looked';
  },
});
const config = validateConfig({ tools: { approval: { mode: 'auto' } } });
const gateFor = (session) =>
  createToolgate({
    config,
    builtins: false,
    tools: [count, look],
    journal,
    session,
    approver: approveAll,
    lease,
  });

for (;;) {
  const taken = journal.claimExpiredBatch(lease);
  if (taken) {
    await gateFor(taken.session).takeOver(taken);
    continue;
  }
  if (mode === 'drain') {
    // A lease renewed by a worker just before it was killed can reach the database late on a
    // loaded machine (issue #31 §2: a fixed wait left a batch unclaimed): whatever is still
    // incomplete is waited for, one lease's length at a time, until its lease runs out and it is
    // taken over here. Bounded by the test's own timeout.
    if (journal.incompleteBatches().length === 0) break;
    await new Promise((r) => setTimeout(r, lease.ttlMs));
    continue;
  }
  const b = randomUUID();
  await gateFor(`s-${lease.worker}`).execute([
    { id: `${b}-1`, name: 'count', arguments: {} },
    { id: `${b}-2`, name: 'look', arguments: {} },
    { id: `${b}-3`, name: 'count', arguments: {} },
    { id: `${b}-4`, name: 'count', arguments: {} },
  ]);
}
journal.close();
