import { batchSummary, type SummaryRow } from '../common/batch-summary.js';
import { type BatchRow, batchRecord, type CallRow, callRecord } from '../journal-records.js';
import type { BatchRecord, BatchSummary } from '../journal-types.js';
import type { BatchHistory } from '../roles/batch-history.js';
import type { SqliteContext } from './sqlite-context.js';
import type { Statements } from './statements.js';

/** A batch's row with its calls, as a record. */
export function withCalls(stmt: Statements, row: BatchRow): BatchRecord {
  return batchRecord(row, (stmt.calls.all(row.id) as CallRow[]).map(callRecord));
}

/** Reading batches back on SQLite; staged batches (any process's) are folded first. */
export class SqliteHistory implements BatchHistory {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  batch(batchId: string): BatchRecord | undefined {
    this.#ctx.foldForRead();
    const row = this.#ctx.stmt.batch.get(batchId) as BatchRow | undefined;
    return row ? withCalls(this.#ctx.stmt, row) : undefined;
  }

  batchIdsStartingWith(prefix: string, limit: number): string[] {
    if (prefix === '') return [];
    this.#ctx.foldForRead();
    return (this.#ctx.stmt.batchIdsStartingWith.all({ prefix, limit }) as { id: string }[]).map((r) => r.id);
  }

  recentBatches(limit: number): BatchSummary[] {
    this.#ctx.foldForRead();
    return (this.#ctx.stmt.recent.all(limit) as SummaryRow[]).map(batchSummary);
  }

  incompleteBatches(): BatchRecord[] {
    this.#ctx.foldForRead();
    return (this.#ctx.stmt.incomplete.all() as BatchRow[]).map((row) => withCalls(this.#ctx.stmt, row));
  }
}
