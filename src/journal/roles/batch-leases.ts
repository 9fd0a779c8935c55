import type { BatchRecord, Lease } from '../journal-types.js';

/**
 * Leases and take-over (issue #17 §2): which worker holds an incomplete batch, and taking one over
 * when its holder died.
 */
export interface BatchLeases {
  /**
   * Issue #17 §2. Extends this worker's lease on an incomplete batch it holds; false when it no
   * longer holds it (it expired and another worker took the batch over): then it must start nothing
   * more of that batch. With a lease, `markRunning` refuses (JournalError) unless the worker still
   * holds an unexpired lease, so a call is never started by two workers.
   */
  renewLease(batchId: string, lease: Lease): boolean;
  /**
   * Takes over one incomplete batch whose lease has expired (its worker died or stopped renewing),
   * the oldest first, atomically: two workers never claim the same batch. Undefined when none.
   * With `batchId`: that batch, when it is incomplete and unleased, expired, or already this
   * worker's (a person resuming one batch).
   */
  claimExpiredBatch(lease: Lease, batchId?: string): BatchRecord | undefined;
}
