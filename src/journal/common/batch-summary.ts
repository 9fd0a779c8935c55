import type { BatchRow } from '../journal-records.js';
import type { BatchSummary } from '../journal-types.js';

/** A batch as listed (`toolgate journal`): its row, how many calls it has and how many failed. */
export type SummaryRow = BatchRow & { calls: number; failed: number | null };

export function batchSummary(r: SummaryRow): BatchSummary {
  return {
    id: r.id,
    session: r.session_id,
    status: r.status,
    createdAt: r.created_at,
    ...(r.finished_at ? { finishedAt: r.finished_at } : {}),
    calls: r.calls,
    failed: r.failed ?? 0,
  };
}
