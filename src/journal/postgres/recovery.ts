import type { ToolResult } from '../../core/tool-result.js';
import { discardSettlement, resumeSettlement } from '../journal-records.js';
import type { BatchRecovery } from '../roles/batch-recovery.js';
import { settleGivenUpBatch } from './given-up.js';
import type { PgContext } from './pg-context.js';
import { settle } from './settle.js';

/** Settling a batch a crash left incomplete, on PostgreSQL: nothing is run again. */
export class PgRecovery implements BatchRecovery {
  readonly #ctx: PgContext;

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
  }

  resumeBatch(batchId: string, worker?: string): ToolResult[] {
    return (
      settleGivenUpBatch(this.#ctx, batchId) ??
      settle(this.#ctx, batchId, 'resumed', resumeSettlement, worker)
    );
  }

  discardBatch(batchId: string, worker?: string): ToolResult[] {
    return (
      settleGivenUpBatch(this.#ctx, batchId) ??
      settle(this.#ctx, batchId, 'discarded', discardSettlement, worker)
    );
  }
}
