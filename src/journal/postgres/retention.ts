import { type ExportRow, exportedCall } from '../journal-records.js';
import type { ExportedCall } from '../journal-types.js';
import type { Retention } from '../roles/retention.js';
import { INCOMPLETE, type PgContext } from './pg-context.js';

/** Rows per page when exporting: memory stays bounded whatever the journal holds. */
const EXPORT_PAGE = 1000;

/** Retention and export on PostgreSQL: pruning old complete batches, exporting calls for audit. */
export class PgRetention implements Retention {
  readonly #ctx: PgContext;

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
  }

  prune(
    before: number,
    maxBatches = Number.MAX_SAFE_INTEGER,
  ): { batches: number; calls: number; messages: number } {
    const [counts, messages] = this.#ctx.write([
      {
        text: `WITH doomed AS (
                 SELECT id FROM batches WHERE created_at < $1 AND status NOT IN ${INCOMPLETE} ORDER BY seq LIMIT $2
               ),
               c AS (DELETE FROM calls WHERE batch_id IN (SELECT id FROM doomed) RETURNING 1),
               b AS (DELETE FROM batches WHERE id IN (SELECT id FROM doomed) RETURNING 1)
               SELECT (SELECT count(*) FROM c) AS calls, (SELECT count(*) FROM b) AS batches`,
        values: [before, Math.min(maxBatches, Number.MAX_SAFE_INTEGER)],
      },
      {
        text: `DELETE FROM messages WHERE created_at < $1 AND (batch_id IS NULL OR batch_id NOT IN
                 (SELECT id FROM batches WHERE status IN ${INCOMPLETE}))`,
        values: [before],
      },
      { text: 'DELETE FROM approval_answers WHERE batch_id NOT IN (SELECT id FROM batches)' },
      // Marks of batches given up on: kept while such a batch could still land (or has, unsettled).
      {
        text: `DELETE FROM given_up_batches WHERE at < $1 AND id NOT IN (SELECT id FROM batches WHERE status IN ${INCOMPLETE})`,
        values: [before],
      },
    ]);
    const row = counts?.rows[0] as { calls: number; batches: number } | undefined;
    return { batches: row?.batches ?? 0, calls: row?.calls ?? 0, messages: messages?.rowCount ?? 0 };
  }

  *exportCalls(since: number): Generator<ExportedCall> {
    // Keyset pages in (created_at, seq, call_index) order: bounded memory for any journal size.
    let after: [number, number, number] | undefined;
    for (;;) {
      const rows = this.#ctx.query<ExportRow & { batch_seq: number }>(
        `SELECT b.id AS batch_id, b.session_id, b.status AS batch_status, b.created_at AS batch_created_at, b.seq AS batch_seq, c.*
         FROM batches b JOIN calls c ON c.batch_id = b.id
         WHERE b.created_at >= $1 ${after ? 'AND (b.created_at, b.seq, c.call_index) > ($2, $3, $4)' : ''}
         ORDER BY b.created_at, b.seq, c.call_index LIMIT ${EXPORT_PAGE}`,
        after ? [since, ...after] : [since],
      );
      for (const row of rows) yield exportedCall(row);
      const last = rows.at(-1);
      if (!last || rows.length < EXPORT_PAGE) return;
      after = [last.batch_created_at, last.batch_seq, last.call_index];
    }
  }
}
