import type { ToolResult } from '../../core/tool-result.js';
import { settleCalls } from '../common/settle-calls.js';
import {
  type BatchRow,
  discardSettlement,
  resumeSettlement,
  type Settlement,
  settleable,
} from '../journal-records.js';
import type { CallRecord } from '../journal-types.js';
import type { BatchRecovery } from '../roles/batch-recovery.js';
import { withCalls } from './history.js';
import type { SqliteContext } from './sqlite-context.js';

/** Settling a batch a crash left incomplete, on SQLite: nothing is run again. */
export class SqliteRecovery implements BatchRecovery {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  resumeBatch(batchId: string, worker?: string): ToolResult[] {
    return this.#settle(batchId, 'resumed', resumeSettlement, worker);
  }

  discardBatch(batchId: string, worker?: string): ToolResult[] {
    return this.#settle(batchId, 'discarded', discardSettlement, worker);
  }

  #settle(
    batchId: string,
    status: 'resumed' | 'discarded',
    decide: (call: CallRecord) => Settlement,
    worker?: string,
  ) {
    const ctx = this.#ctx;
    const stmt = ctx.stmt;
    const now = Date.now();
    let results: ToolResult[] = [];
    // One transaction: staged batches (any process's) folded first, so the session's messages keep
    // their order; then the batch checked, so a settle or discard by another process cannot land
    // between the check and the write.
    ctx.commit(() => {
      const row = stmt.batch.get(batchId) as BatchRow | undefined;
      const record = settleable(row ? withCalls(stmt, row) : undefined, batchId, ctx.location, now, worker);
      results = settleCalls(record.calls, decide, (call, outcome, json) => {
        if (outcome.discard) {
          stmt.discard.run(json, outcome.status, now, batchId, call.index);
        } else {
          stmt.setResult.run(outcome.status, json, now, batchId, call.index);
          ctx.message(record.session, 'tool', outcome.result, batchId, call.id, json);
        }
      });
      stmt.finishBatch.run(status, now, batchId);
    }, true);
    ctx.sessionOf.delete(batchId);
    return results;
  }
}
