import type { BatchRecord } from './journal.js';
import { describeProcess, liveness, parseProcessId, thisProcess } from './process-identity.js';

/**
 * Who, if anyone, still has an incomplete batch (seed 000 §3.8, issue #31 §3): recovery lists
 * every incomplete batch with this, acts on a free one at once, and says who holds the others.
 */
export type BatchHolder =
  /** Nobody: its process is known to have ended here, or its lease ran out. Recover it now. */
  | { kind: 'free' }
  /**
   * A toolgate still running on this machine (waiting for a person, or for its calls).
   * `takeOver`: it no longer holds a live lease (stalled, or it lost the lease), so `--take-over`
   * may finish the batch; resuming or discarding under it never is.
   */
  | { kind: 'running'; worker: string; pid: number; until?: number; takeOver: boolean }
  /** A worker this machine cannot see (another host or container) whose lease has not run out. */
  | { kind: 'held'; worker: string; until: number };

/**
 * The holder of `batch` at `now` (the clock its lease is written in). The lease decides when there
 * is one: a lease of a process known gone holds nothing, however long it had to run; otherwise
 * the batch's own process, while it runs here, still answers for it (it may yet record a result).
 */
export function holderOf(
  batch: Pick<BatchRecord, 'owner' | 'lease'>,
  now = Date.now(),
  self = thisProcess(),
): BatchHolder {
  const { lease, owner } = batch;
  if (lease && lease.worker !== self) {
    const state = liveness(lease.worker);
    if (state === 'alive')
      return running(lease.worker, { until: lease.expiresAt, takeOver: lease.expiresAt < now });
    if (state === 'unknown' && lease.expiresAt >= now)
      return { kind: 'held', worker: lease.worker, until: lease.expiresAt };
  }
  if (owner && owner !== self && liveness(owner) === 'alive') {
    // Its lease is gone or run out: it starts nothing more, so a worker may finish the batch.
    return running(owner, { ...(lease ? { until: lease.expiresAt } : {}), takeOver: lease !== undefined });
  }
  return { kind: 'free' };
}

function running(worker: string, rest: { until?: number; takeOver: boolean }): BatchHolder {
  return { kind: 'running', worker, pid: parseProcessId(worker)?.pid ?? 0, ...rest };
}

/**
 * Why the batch cannot be resumed, discarded (`takeOver` false) or taken over here, and what to do,
 * fix first; undefined when it can.
 */
export function heldMessage(batchId: string, holder: BatchHolder, takeOver: boolean): string | undefined {
  switch (holder.kind) {
    case 'free':
      return undefined;
    case 'running': {
      if (takeOver && holder.takeOver) return undefined;
      const by = `${describeProcess(holder.worker)}`;
      if (holder.takeOver)
        return `take batch ${batchId} over with \`toolgate recover --take-over ${batchId}\` (its toolgate, ${by}, still runs but no longer holds its lease), or stop that process (kill ${holder.pid}) first: resuming or discarding it under a live process could race a result it still records`;
      return `leave batch ${batchId} to the toolgate that is running it (${by}; it is waiting for a person or for its calls, not interrupted), or stop that process (kill ${holder.pid}) and run this again${
        holder.until !== undefined
          ? ` (it holds the batch's lease until ${new Date(holder.until).toISOString()} and renews it while it runs)`
          : ''
      }`;
    }
    case 'held':
      return `run this again after ${new Date(holder.until).toISOString()} if the worker holding batch ${batchId} (${describeProcess(holder.worker)}) has ended: until then its lease says it runs there, and this machine cannot see that process`;
  }
}
