import { type BatchRow, batchRecord, type CallRow, callRecord } from '../journal-records.js';
import type { BatchRecord } from '../journal-types.js';
import type { PgContext } from './pg-context.js';

/** A batch's row as a record, with its calls read in call order. */
export function withCalls(ctx: PgContext, row: BatchRow): BatchRecord {
  const calls = ctx.query<CallRow>('SELECT * FROM calls WHERE batch_id = $1 ORDER BY call_index', [row.id]);
  return batchRecord(row, calls.map(callRecord));
}

/** The batch as stored, nothing settled on the way (for settling itself). */
export function storedBatch(ctx: PgContext, batchId: string): BatchRecord | undefined {
  const row = ctx.query<BatchRow>('SELECT * FROM batches WHERE id = $1', [batchId])[0];
  return row ? withCalls(ctx, row) : undefined;
}
