import { errorResult } from '../core/make-result.js';
import type { ToolResult } from '../core/tool-result.js';
import type { BatchLog } from '../journal/roles/batch-log.js';
import type { BatchRecovery } from '../journal/roles/batch-recovery.js';

/** The journal as giving a batch up uses it: settle it as not run, or mark it given up. */
export type GiveUpJournal = Pick<BatchRecovery, 'resumeBatch'> & Pick<BatchLog, 'giveUp'>;

/**
 * A batch this process gave up on (the journal failed, or the lease was lost): the journal is
 * made to agree with what the model is told, so calls it was told did not run are settled as not
 * run and no worker takes them over later. Where the journal cannot be told (still failing), the
 * results say that a worker may yet run those calls. A batch another worker holds is its own.
 * `worker`: this gate's lease's worker, if it has one.
 */
export function abandonBatch(
  journal: GiveUpJournal,
  batchId: string,
  worker: string | undefined,
  results: ToolResult[],
  /** The failed write's outcome is unknown: on a server, a commit not answered may still land later. */
  mayLandLater = false,
  /** That write was the batch's first (beginBatch): nothing of the batch can have run. */
  firstWrite = false,
): ToolResult[] {
  const warn = (why: string) =>
    results.map((r) =>
      r.error?.type === 'Internal' && r.error.message.startsWith('not executed')
        ? errorResult(
            r.id,
            r.name,
            'Internal',
            `${r.error.message} (${why}: a worker may still run this call later; see \`toolgate journal show ${batchId}\`)`,
          )
        : r,
    );
  // A first commit the server never answered can still land after the time the bridge waited (a
  // stalled disk or standby). Nothing of the batch ran, so it is marked given up first, before
  // anyone could claim it: if it lands, whoever meets it settles it as never run.
  const marked = mayLandLater && firstWrite && givenUp(journal, batchId, worker);
  try {
    journal.resumeBatch(batchId, worker);
    return results;
  } catch (error) {
    const message = (error as Error).message;
    const missing = /no batch with id/.test(message);
    const heldElsewhere = /held by worker/.test(message);
    const settledAlready = /is already/.test(message);
    if (mayLandLater) {
      // Another worker holding it may run what the model is told did not run: said so.
      if (heldElsewhere) return warn('another worker holds the batch');
      if (marked || settledAlready) return results;
      return warn(
        missing
          ? 'the journal did not confirm the batch was not recorded'
          : 'the journal could not be told either',
      );
    }
    // Nothing recorded, already settled, or held by the worker that took it over: nothing to add.
    if (missing || heldElsewhere || settledAlready) return results;
    return warn('the journal could not be told either');
  }
}

/** The batch marked given up in a journal that can (Journal.giveUp): true once that is recorded. */
function givenUp(journal: Pick<BatchLog, 'giveUp'>, batchId: string, worker: string | undefined): boolean {
  if (!journal.giveUp) return false;
  try {
    journal.giveUp(batchId, worker);
    return true;
  } catch {
    return false;
  }
}
