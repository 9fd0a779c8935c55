import type { ExportedCall } from '../journal-types.js';

/**
 * Retention and export: pruning old complete batches, exporting calls for audit systems.
 */
export interface Retention {
  /**
   * Retention: removes complete batches created before `before` (ms), their calls, and the
   * conversation messages as old; never an open batch or one waiting for approval.
   */
  prune(before: number, maxBatches?: number): { batches: number; calls: number; messages: number };
  /** Every call of batches created at or after `since` (ms), oldest first, for audit systems. */
  exportCalls(since: number): Iterable<ExportedCall>;
}
