import type { BatchLeases, Lease } from './journal.js';

/** How long a worker holds a batch between renewals, unless told otherwise (issue #17 §2). */
export const DEFAULT_LEASE_MS = 30_000;

/**
 * Renews `lease` on a batch every third of its length while the batch runs (or waits for a
 * person); returns the function that stops. A lease found lost stops renewing: the worker's next
 * `markRunning` is then refused, so it starts nothing more, and the batch is left to whoever takes
 * it over. A renewal that could not be written (the journal busy or briefly unreachable) is tried
 * again at the next turn: one failed write must not hand a live batch to another worker.
 */
export function keepLease(journal: BatchLeases, batchId: string, lease: Lease): () => void {
  const timer = setInterval(
    () => {
      let held: boolean;
      try {
        held = journal.renewLease(batchId, lease);
      } catch {
        return; // not known to be lost: tried again at the next turn
      }
      if (!held) clearInterval(timer);
    },
    Math.max(10, Math.floor(lease.ttlMs / 3)),
  );
  // Renewing never keeps a process alive on its own: the batch's own work does.
  timer.unref();
  return () => clearInterval(timer);
}
