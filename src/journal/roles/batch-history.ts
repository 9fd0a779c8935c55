import type { BatchRecord, BatchSummary } from '../journal-types.js';

/**
 * Reading batches back: one whole, by id prefix, the latest, the incomplete ones (recovery
 * listings).
 */
export interface BatchHistory {
  batch(batchId: string): BatchRecord | undefined;
  /** Ids of batches that start with `prefix` (ids print shortened), at most `limit`. */
  batchIdsStartingWith(prefix: string, limit: number): string[];
  recentBatches(limit: number): BatchSummary[];
  incompleteBatches(): BatchRecord[];
}
