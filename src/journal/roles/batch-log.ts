import type { ToolCall } from '../../core/tool-call.js';
import type { ToolResult } from '../../core/tool-result.js';
import type { BeginBatchOptions, FinishedCall, Lease, PlanEntry } from '../journal-types.js';

/**
 * The batch log: every batch and call, each decision, start and result, committed as it happens
 * (seed 000 FR-RES-04). `sync()` makes everything committed so far survive a power loss too; the
 * pipeline awaits it where a side effect depends on it (docs/DURABILITY.md).
 */
export interface BatchLog {
  /** Where it is, for messages: a file, or a server's URL without its password. */
  readonly location: string;
  /** The local file it lives in (SQLite), as given; undefined for a server or in memory. */
  readonly file?: string | undefined;
  /**
   * Every commit is on disk as it returns (a server's synchronous commit), not at the next `sync()`:
   * the pipeline then flushes the files a call wrote before it records that call's result.
   */
  readonly durableCommits?: boolean;
  /** beginBatch honours `running` (the first call recorded running in the batch's own commit). */
  readonly beginsRunning?: boolean;
  /**
   * Runs `fn` (synchronous) as of one moment: what other connections committed is looked for once,
   * not by every read inside (planning reads the mode and the grants; each look costs a lock).
   */
  atOneMoment?<T>(fn: () => T): T;
  /**
   * Records, in one transaction, the assistant message and every call of a batch in call order
   * (status `planned`), with each call's policy decision and, for those that must be asked, the
   * confirmation request (status `awaiting_approval`).
   */
  beginBatch(session: string, calls: readonly ToolCall[], options?: BeginBatchOptions): string;
  /**
   * FR-RES-04a: records a tool call the moment a provider stream has it whole, before the response
   * (and so the batch) is complete. The batch is created on the first call. Then `execute` with
   * the same `batchId` plans and runs it.
   */
  recordStreamedCall(session: string, batchId: string, index: number, call: ToolCall, lease?: Lease): void;
  /**
   * A batch recorded whole, after it ran, in one commit: calls, decisions, results, messages. Only
   * for batches of read-only calls (and calls refused at planning), which need no record before
   * they run: a crash mid-batch changed nothing, and nobody received a result (docs/DURABILITY.md).
   */
  recordFinishedBatch(
    session: string,
    calls: readonly ToolCall[],
    finished: readonly FinishedCall[],
    options?: BeginBatchOptions,
  ): string;
  /** Records today's decisions for a pending batch being planned again after a restart. */
  replan(batchId: string, plan: readonly PlanEntry[]): void;
  /** The answer to the batch's confirmations: these calls may run. */
  markApproved(batchId: string, indexes: readonly number[], lease?: Lease): void;
  /**
   * Committed before the tool starts: a crash after this leaves the outcome `unknown`, never re-run.
   * For a call with side effects the pipeline also awaits `sync()` before starting it.
   */
  markRunning(batchId: string, index: number, lease?: Lease): void;
  /**
   * The call marked `running` did not start after all (the fsync before it, or a hook, failed):
   * back to unstarted, so recovery settles it as never run rather than "outcome unknown". Only a
   * call still `running`. Optional: a store without it leaves the call `running` (unknown).
   */
  markNotStarted?(batchId: string, index: number): void;
  /**
   * One result per call (and a `tool` message), committed before the next call starts. With
   * `finish`, the batch's last result: the batch is completed in the same commit, as `finishBatch`
   * would (one commit fewer per batch), and true is returned. A store that does not (or cannot)
   * returns nothing: `finishBatch` then follows as before.
   */
  recordResult(
    batchId: string,
    index: number,
    result: ToolResult,
    status?: 'done' | 'denied' | 'unknown',
    finish?: { lease?: Lease },
  ): boolean | undefined;
  /** Completes the batch, unless it was settled or taken over by another worker meanwhile (then nothing). */
  finishBatch(batchId: string, lease?: Lease): void;
  /**
   * Records that this process gave up on a batch whose first commit the store never confirmed (its
   * calls were reported as not run): should that commit land later, the batch is settled as never
   * run when a worker would claim it, never run. For stores whose commits can land after the caller
   * stopped waiting (a server); written so that it does not wait on what held the first commit up.
   * `worker`: the giving-up process's lease, if it had one; a lease anyone else holds is respected.
   */
  giveUp?(batchId: string, worker?: string): void;
  /**
   * Resolves once everything committed before the call is on disk (power-loss durable). Callers
   * asking at the same time share one flush (group commit); a store whose every commit is already
   * durable resolves at once. Rejects with a JournalError if the disk refuses.
   */
  sync(): Promise<void>;
}
