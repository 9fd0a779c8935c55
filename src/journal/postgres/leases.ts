import type { BatchRecord, Lease } from '../journal-types.js';
import { workerGone } from '../process-identity.js';
import type { BatchHistory } from '../roles/batch-history.js';
import type { BatchLeases } from '../roles/batch-leases.js';
import { settleGivenUpIfStill } from './given-up.js';
import { INCOMPLETE, NOW_MS, type PgContext } from './pg-context.js';

/**
 * Leases on PostgreSQL (issue #17 §2): judged by the server's clock, whichever machine a worker is
 * on; workers claiming at once each take a different batch.
 */
export class PgLeases implements BatchLeases {
  readonly #ctx: PgContext;
  readonly #history: Pick<BatchHistory, 'batch'>;

  constructor(ctx: PgContext, history: Pick<BatchHistory, 'batch'>) {
    this.#ctx = ctx;
    this.#history = history;
  }

  renewLease(batchId: string, lease: Lease): boolean {
    const [r] = this.#ctx.write([
      {
        text: `UPDATE batches SET lease_expires = ${NOW_MS} + $1 WHERE id = $2 AND lease_owner = $3 AND status IN ${INCOMPLETE}`,
        values: [lease.ttlMs, batchId, lease.worker],
      },
    ]);
    return (r?.rowCount ?? 0) > 0;
  }

  claimExpiredBatch(lease: Lease, batchId?: string): BatchRecord | undefined {
    for (;;) {
      // A lease of a process known to have ended on this machine holds nothing, even before it
      // runs out (issue #31 §3). Only this machine can tell, so the workers are judged here and
      // named to the server: a lease taken meanwhile by anyone else is another name, not taken.
      const gone = this.#ctx
        .query<{ lease_owner: string }>(
          `SELECT DISTINCT lease_owner FROM batches WHERE status IN ${INCOMPLETE}
             AND lease_expires >= ${NOW_MS} AND lease_owner IS NOT NULL`,
        )
        .map((r) => r.lease_owner)
        .filter((w) => w !== lease.worker && workerGone(w));
      // As JSON text: a statement's literals hold strings and numbers, not arrays of strings.
      const goneJson = JSON.stringify(gone);
      // SKIP LOCKED: workers claiming at once each take a different batch, none waits on another.
      const [r] = this.#ctx.write([
        batchId !== undefined
          ? {
              text: `UPDATE batches SET lease_owner = $1, lease_expires = ${NOW_MS} + $2
                     WHERE id = $3 AND status IN ${INCOMPLETE}
                       AND (lease_expires IS NULL OR lease_expires < ${NOW_MS} OR lease_owner = $1
                            OR lease_owner IN (SELECT json_array_elements_text($4::json)))
                     RETURNING id, EXISTS (SELECT 1 FROM given_up_batches g WHERE g.id = batches.id) AS given_up`,
              values: [lease.worker, lease.ttlMs, batchId, goneJson],
            }
          : {
              text: `UPDATE batches SET lease_owner = $1, lease_expires = ${NOW_MS} + $2
                     WHERE id = (SELECT id FROM batches WHERE status IN ${INCOMPLETE}
                                   AND (lease_expires < ${NOW_MS}
                                        OR lease_owner IN (SELECT json_array_elements_text($3::json)))
                                 ORDER BY created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED)
                     RETURNING id, EXISTS (SELECT 1 FROM given_up_batches g WHERE g.id = batches.id) AS given_up`,
              values: [lease.worker, lease.ttlMs, goneJson],
            },
      ]);
      const row = r?.rows[0] as { id: string; given_up: boolean } | undefined;
      if (row === undefined) return undefined;
      if (!row.given_up) return this.#history.batch(row.id);
      // A batch its process gave up on, whose first commit landed after all: the model was told it
      // did not run, so it never does. Settled now (this worker holds it); a worker looking for any
      // batch looks on.
      settleGivenUpIfStill(this.#ctx, row.id, lease.worker);
      if (batchId !== undefined) return undefined;
    }
  }
}
