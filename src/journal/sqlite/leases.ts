import type { BatchRecord, Lease } from '../journal-types.js';
import { workerGone } from '../process-identity.js';
import type { BatchHistory } from '../roles/batch-history.js';
import type { BatchLeases } from '../roles/batch-leases.js';
import { type BatchSealRow, batchFields, sealValid } from '../state-seal.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * Leases on SQLite (issue #17 §2): a worker's hold on a batch it runs, renewed while it runs; a
 * batch whose lease ran out, or whose holder is known gone, is taken over by one worker only.
 */
export class SqliteLeases implements BatchLeases {
  readonly #ctx: SqliteContext;
  readonly #history: Pick<BatchHistory, 'batch'>;

  constructor(ctx: SqliteContext, history: Pick<BatchHistory, 'batch'>) {
    this.#ctx = ctx;
    this.#history = history;
  }

  renewLease(batchId: string, lease: Lease): boolean {
    const now = Date.now();
    return (
      this.#ctx.write(() => this.#ctx.stmt.renewLease.run(now + lease.ttlMs, batchId, lease.worker).changes) >
      0
    );
  }

  claimExpiredBatch(lease: Lease, batchId?: string): BatchRecord | undefined {
    const ctx = this.#ctx;
    const now = Date.now();
    const until = now + lease.ttlMs;
    // Found and taken in one write transaction (the write lock held): two workers never both take it.
    const id = ctx.write(() => {
      // A lease of a process known to have ended here holds nothing, even before it runs out: a
      // batch SIGKILLed a moment ago is taken over at once, not 30 s later (issue #31 §3).
      const gone = JSON.stringify(
        (ctx.stmt.liveLeaseWorkers.all(now) as string[]).filter((w) => w !== lease.worker && workerGone(w)),
      );
      if (batchId !== undefined) {
        const taken = ctx.stmt.claimOne.run({
          worker: lease.worker,
          until,
          id: batchId,
          now,
          gone,
        }).changes;
        return taken > 0 ? batchId : undefined;
      }
      // A worker takes over on its own only batches this user's toolgate journaled here (sealed):
      // one planted in the journal (a committed .toolgate/journal.db) waits for a person to name it.
      const key = ctx.seals.keyToRead();
      let found: string | undefined;
      for (const r of ctx.stmt.expiredLease.iterate({ now, gone }) as IterableIterator<BatchSealRow>) {
        if (!sealValid(key, 'batch', batchFields(r), r.seal)) continue;
        found = r.id;
        break;
      }
      if (found !== undefined) ctx.stmt.setLease.run(lease.worker, until, found);
      return found;
    });
    return id === undefined ? undefined : this.#history.batch(id);
  }
}
