import { batchSummary, type SummaryRow } from '../common/batch-summary.js';
import type { BatchRow } from '../journal-records.js';
import type { BatchRecord, BatchSummary } from '../journal-types.js';
import type { BatchHistory } from '../roles/batch-history.js';
import { settleGivenUp, settleGivenUpIfStill } from './given-up.js';
import { INCOMPLETE, type PgContext } from './pg-context.js';
import { storedBatch, withCalls } from './stored-batch.js';

/**
 * A result that failed, read from its JSON text as the journal writes it ({"id":…,"name":…,"ok":false…}),
 * never parsed as jsonb: jsonb refuses \u0000 and unpaired surrogates, which a model can put in a result.
 */
const FAILED_RESULT = String.raw`^\{"id":"([^"\\]|\\.)*","name":"([^"\\]|\\.)*","ok":false`;

/** `LIKE` text matching `prefix` literally (its %, _ and \ escaped). */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Reading batches back on PostgreSQL. A batch given up on that landed after all is settled as
 * never run before it is shown (given-up.ts).
 */
export class PgHistory implements BatchHistory {
  readonly #ctx: PgContext;

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
  }

  batch(batchId: string): BatchRecord | undefined {
    const row = this.#ctx.query<BatchRow & { given_up: boolean; given_up_by: string | null }>(
      `SELECT b.*, g.id IS NOT NULL AS given_up, g.worker AS given_up_by
         FROM batches b LEFT JOIN given_up_batches g ON g.id = b.id WHERE b.id = $1`,
      [batchId],
    )[0];
    if (!row?.given_up || (row.status !== 'open' && row.status !== 'awaiting_approval'))
      return row ? withCalls(this.#ctx, row) : undefined;
    // Given up, and landed after all: settled before anyone can resume or answer it (see settleGivenUp).
    settleGivenUpIfStill(this.#ctx, batchId, row.given_up_by ?? undefined);
    return storedBatch(this.#ctx, batchId);
  }

  batchIdsStartingWith(prefix: string, limit: number): string[] {
    if (prefix === '') return [];
    return this.#ctx
      .query<{ id: string }>('SELECT id FROM batches WHERE id LIKE $1 ORDER BY created_at DESC LIMIT $2', [
        likePrefix(prefix),
        limit,
      ])
      .map((r) => r.id);
  }

  recentBatches(limit: number): BatchSummary[] {
    return this.#ctx
      .query<SummaryRow>(
        `SELECT b.id, b.seq, b.session_id, b.status, b.created_at, b.finished_at, count(c.call_index) AS calls,
                coalesce(sum(CASE WHEN c.result ~ '${FAILED_RESULT}' THEN 1 ELSE 0 END), 0) AS failed
         FROM (SELECT * FROM batches ORDER BY seq DESC LIMIT $1) b
         LEFT JOIN calls c ON c.batch_id = b.id
         GROUP BY b.id, b.seq, b.session_id, b.status, b.created_at, b.finished_at
         ORDER BY b.created_at DESC, b.seq DESC`,
        [limit],
      )
      .map(batchSummary);
  }

  incompleteBatches(): BatchRecord[] {
    settleGivenUp(this.#ctx);
    return this.#ctx
      .query<BatchRow>(`SELECT * FROM batches WHERE status IN ${INCOMPLETE} ORDER BY created_at, seq`)
      .map((row) => withCalls(this.#ctx, row));
  }
}
