import type { PlannedCall } from '../core/planned-call.js';
import { isRepeatable } from '../core/tier.js';
import type { ToolResult } from '../core/tool-result.js';
import type { BatchObserver } from '../run/execute-batch.js';
import type { PendingSyncs } from '../sandbox/pending-syncs.js';
import type { BatchLog, Lease } from './journal.js';

const DENIALS = new Set(['Denied', 'SandboxViolation', 'LimitExceeded']);

/**
 * How the journal files a call's result: refused at planning is `denied`; a call whose worker died
 * while it ran (settled by a takeover, `metadata.outcome = "unknown"`) is `unknown`; anything else `done`.
 */
export function journalStatus(result: ToolResult, p: PlannedCall): 'done' | 'denied' | 'unknown' {
  const preResolved = p.disposition.kind === 'resolved';
  if (preResolved && result.metadata?.outcome === 'unknown') return 'unknown';
  return preResolved && result.error && DENIALS.has(result.error.type) ? 'denied' : 'done';
}

/**
 * A batch the journal may record after it ran, in one commit (`recordFinishedBatch`): nothing in
 * it waits for a person, and every call that runs is read-only, so a crash before that commit
 * changed nothing and delivered nothing.
 */
export function recordableAfter(planned: readonly PlannedCall[]): boolean {
  return planned.every(
    (p) =>
      p.disposition.kind === 'resolved' ||
      (p.disposition.kind === 'execute' && p.tool !== undefined && isRepeatable(p.tool.tier)),
  );
}

/**
 * Hooks one batch's execution to the journal: `running` before a call starts, its result after.
 * A call with side effects starts only once its `running` row, and with it every result before it,
 * is on disk (one shared fsync); a read-only call never waits for one: after a crash, running it
 * again is harmless (docs/DURABILITY.md).
 */
export function journalObserver(
  journal: BatchLog,
  batchId: string,
  next?: BatchObserver,
  lease?: Lease,
  /** Calls whose result the journal already holds (a batch taken over): not recorded again. */
  recorded?: ReadonlySet<number>,
  /** Files written and still being flushed: on disk before a durable commit records their result. */
  pendingSyncs?: PendingSyncs,
  /** Calls in the batch: the last result recorded completes the batch in the same commit. */
  total?: number,
  /** The call beginBatch already recorded running (`running`): not marked again as it starts. */
  runningAtBegin?: number,
): BatchObserver & { readonly halted: boolean; readonly finished: boolean; readonly allRecorded: boolean } {
  let halted = false;
  /** Results the journal holds (recorded here, or before a takeover). */
  let stored = 0;
  let markedAtBegin = runningAtBegin;
  let finished = false;
  const delivered = new Set<number>();
  /**
   * Whatever fails in a hook (the journal, its fsync, a lost lease, or the caller's own observer)
   * stops the batch in executeBatch: it is marked halted so that the journal is made to agree
   * (the batch abandoned, not completed with a call left unstarted or running).
   */
  const halting = <T>(run: () => T): T =>
    onFailure(run, (error) => {
      halted = true;
      throw error;
    });
  return {
    /** A call could not be recorded as started or finished (the lease was lost, or the journal failed). */
    get halted() {
      return halted;
    },
    /** The batch was completed with its last result (no finishBatch needed). */
    get finished() {
      return finished;
    },
    /**
     * Every call's result is in the journal: a halt after the last one (the caller's own observer
     * failing on it) left nothing unstarted, and the batch is complete, not one to resume.
     */
    get allRecorded() {
      return total !== undefined && stored === total;
    },
    onCallStart(p: PlannedCall) {
      return halting(() => {
        // With a lease: only while this worker still holds the batch (never two workers on one call).
        if (p.index === markedAtBegin) markedAtBegin = undefined;
        else journal.markRunning(batchId, p.index, lease);
        // From here the call is `running`; if it does not start after all, the journal says so.
        return onFailure(
          () => {
            const flushed = p.tool && isRepeatable(p.tool.tier) ? undefined : journal.sync();
            const after = next?.onCallStart;
            if (!flushed) return after?.(p);
            return after ? flushed.then(() => after(p)) : flushed;
          },
          (error) => {
            try {
              journal.markNotStarted?.(batchId, p.index);
            } catch {
              // Left `running`: recovery calls it "outcome unknown", the careful side.
            }
            throw error;
          },
        );
      });
    },
    onCallResult(result: ToolResult, p: PlannedCall) {
      const record = () =>
        halting(() => {
          delivered.add(p.index);
          if (!recorded?.has(p.index)) {
            const last = delivered.size === total;
            const status = journalStatus(result, p);
            // Finished only where the store says it completed the batch: one that ignores
            // `finish` gets its finishBatch after, as before.
            finished =
              journal.recordResult(batchId, p.index, result, status, last ? { lease } : undefined) === true;
          }
          stored++;
          return next?.onCallResult?.(result, p);
        });
      // A commit durable as it returns must not claim a file still on its way to the disk.
      if (journal.durableCommits && pendingSyncs && !pendingSyncs.idle)
        return pendingSyncs.drained().then(record);
      return record();
    },
  };
}

/**
 * Runs `run`; if it throws, or answers a promise that rejects (any thenable: a promise from another
 * realm is not `instanceof Promise`), `failed` is called with the error (and rethrows it).
 */
function onFailure<T>(run: () => T, failed: (error: unknown) => never): T {
  let out: T;
  try {
    out = run();
  } catch (error) {
    return failed(error);
  }
  if (typeof (out as { then?: unknown } | undefined)?.then === 'function')
    return Promise.resolve(out).catch(failed) as T;
  return out;
}
