import type { ToolResult } from '../../core/tool-result.js';
import { settleCalls } from '../common/settle-calls.js';
import { JournalError } from '../journal-error.js';
import { type Settlement, settleable } from '../journal-records.js';
import type { CallRecord } from '../journal-types.js';
import { workerGone } from '../process-identity.js';
import { messageStatements } from './conversation.js';
import { explainPgError } from './explain-pg-error.js';
import { INCOMPLETE, NOW_MS, type PgContext } from './pg-context.js';
import { storedBatch } from './stored-batch.js';
import { PgError, type PgStatement } from './sync-pg.js';

/**
 * Settles an incomplete batch once (recovery, and batches given up on): each call as `decide`
 * says, the batch `status`, in one transaction. Refused (JournalError) when another process
 * settled it meanwhile, or a worker other than `worker` holds a lease on it that has not run out.
 */
export function settle(
  ctx: PgContext,
  batchId: string,
  status: 'resumed' | 'discarded',
  decide: (call: CallRecord) => Settlement,
  worker?: string,
): ToolResult[] {
  const record = settleable(storedBatch(ctx, batchId), batchId, ctx.location);
  const now = Date.now();
  const out: PgStatement[] = [
    // Settled once: the batch row is locked, and if another process settled it meanwhile the
    // division by zero aborts the whole transaction (nothing of this settlement is written).
    {
      text: `SELECT 1 / count(*) FROM (SELECT 1 FROM batches WHERE id = $1 AND status IN ${INCOMPLETE}
               AND (lease_expires IS NULL OR lease_expires < ${NOW_MS} OR lease_owner IS NOT DISTINCT FROM $2 OR $3) FOR UPDATE) s`,
      // A lease of a process of this host that is gone holds nothing (known here, not on the server).
      values: [batchId, worker ?? null, workerGone(record.lease?.worker)],
    },
  ];
  const results = settleCalls(record.calls, decide, (call, outcome, json) => {
    out.push(
      outcome.discard
        ? {
            text: 'UPDATE calls SET discarded_result = result, result = $1, status = $2, finished_at = coalesce(finished_at, $3) WHERE batch_id = $4 AND call_index = $5',
            values: [json, outcome.status, now, batchId, call.index],
          }
        : {
            text: 'UPDATE calls SET status = $1, result = $2, finished_at = $3 WHERE batch_id = $4 AND call_index = $5',
            values: [outcome.status, json, now, batchId, call.index],
          },
    );
    if (!outcome.discard)
      out.push(...messageStatements(record.session, 'tool', outcome.result, batchId, call.id, json));
  });
  out.push({
    text: `UPDATE batches SET status = $1, finished_at = $2, lease_expires = NULL WHERE id = $3 AND status IN ${INCOMPLETE}`,
    values: [status, now, batchId],
  });
  try {
    ctx.transaction(out);
  } catch (error) {
    if (error instanceof PgError && error.code === '22012') {
      // Which of the two: a caller that gave the batch up must know whether a worker may run it.
      const now = storedBatch(ctx, batchId);
      throw new JournalError(
        now && (now.status === 'open' || now.status === 'awaiting_approval')
          ? `batch ${batchId} is held by worker ${now.lease?.worker ?? '(unknown)'} (its lease has not run out); see \`toolgate journal show ${batchId}\``
          : `batch ${batchId} is already ${now?.status ?? 'gone'}: settled by another process meanwhile; see \`toolgate journal show ${batchId}\``,
      );
    }
    throw explainPgError(error, ctx.location);
  }
  ctx.sessionOf.delete(batchId);
  return results;
}
