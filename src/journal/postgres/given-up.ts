import type { ToolResult } from '../../core/tool-result.js';
import { givenUpSettlement } from '../journal-records.js';
import { INCOMPLETE, type PgContext } from './pg-context.js';
import { settle } from './settle.js';

/**
 * Batches this process gave up on (giveUp: their first commit was never confirmed, and their calls
 * were reported as not run) whose commit landed after all: the mark, and settling them as never
 * run, so nobody is asked about them and no worker or recovery runs them.
 */

/** Marks the batch given up on (for `worker`'s lease, if it had one). */
export function markGivenUp(ctx: PgContext, batchId: string, worker?: string): void {
  // Local durability only: a commit held up waiting for a standby must not hold this one up too.
  ctx.write([
    // For this transaction only (set_config's `true`): the statements go as one implicit transaction.
    { text: "SELECT set_config('synchronous_commit', 'local', true)" },
    {
      text: 'INSERT INTO given_up_batches (id, at, worker) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
      values: [batchId, Date.now(), worker ?? null],
    },
  ]);
}

/**
 * Batches given up on whose first commit landed after all (giveUp): settled as never run before
 * anything lists them, so nobody is asked about them and no recovery resumes them. The giving-up
 * process's own lease does not stop the settling (it will never use it); anyone else's does.
 */
export function settleGivenUp(ctx: PgContext): void {
  const rows = ctx.query<{ id: string; worker: string | null }>(
    `SELECT b.id, g.worker FROM batches b JOIN given_up_batches g ON g.id = b.id WHERE b.status IN ${INCOMPLETE}`,
  );
  for (const { id, worker } of rows) settleGivenUpIfStill(ctx, id, worker ?? undefined);
}

/**
 * Settles a given-up batch as never run, passing over `worker`'s lease only. Left as it is when
 * another process settled it meanwhile, or a worker that claimed it before the mark holds it
 * (its lease is respected: it may be running a call).
 */
export function settleGivenUpIfStill(ctx: PgContext, batchId: string, worker: string | undefined): void {
  try {
    settle(ctx, batchId, 'discarded', givenUpSettlement, worker);
  } catch {
    // Settled or held elsewhere: see above.
  }
}

/**
 * An incomplete batch marked given up is settled as never run whoever asks to resume or discard
 * it (nothing of it ran: a call its first commit marked running never started); else undefined.
 */
export function settleGivenUpBatch(ctx: PgContext, batchId: string): ToolResult[] | undefined {
  const [row] = ctx.query<{ worker: string | null }>(
    `SELECT g.worker FROM batches b JOIN given_up_batches g ON g.id = b.id WHERE b.id = $1 AND b.status IN ${INCOMPLETE}`,
    [batchId],
  );
  return row ? settle(ctx, batchId, 'discarded', givenUpSettlement, row.worker ?? undefined) : undefined;
}
