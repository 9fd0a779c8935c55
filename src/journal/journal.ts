import type { ConfirmationRequest } from '../core/confirmation.js';
import type { Grant } from '../core/grant.js';
import type { PolicyDecision } from '../core/policy-decision.js';
import type { GovernanceMode } from '../core/tier.js';
import type { ToolCall } from '../core/tool-call.js';
import type { ToolResult } from '../core/tool-result.js';
import type { ReadRecord } from '../tools/fs/read-cache.js';
import type { Todo } from '../tools/todos/todo-store.js';

/** A call's life in the journal (seed 000 FR-RES-04, issue #4). */
export type CallStatus =
  | 'planned'
  | 'awaiting_approval'
  | 'approved'
  | 'denied'
  | 'running'
  | 'done'
  /** Settled by recovery without ever having started: it did not run. */
  | 'not_run'
  | 'unknown';

/** A batch is `open` while it runs, `awaiting_approval` while a person is asked, then settled. */
export type BatchStatus = 'open' | 'awaiting_approval' | 'complete' | 'resumed' | 'discarded';

export interface CallRecord {
  index: number;
  id: string;
  name: string;
  arguments: ToolCall['arguments'];
  status: CallStatus;
  decision?: { action: string; rule: string; file: string; reason: string };
  approval?: ConfirmationRequest;
  result?: ToolResult;
  startedAt?: number;
  finishedAt?: number;
}

export interface BatchRecord {
  id: string;
  session: string;
  status: BatchStatus;
  createdAt: number;
  finishedAt?: number;
  assistantText?: string;
  /** The process that journaled it (`host:pid:start`), where the store records one. */
  owner?: string;
  /** The worker holding it while it runs, and until when (ms since the epoch, the journal's clock). */
  lease?: { worker: string; expiresAt: number };
  calls: CallRecord[];
}

export interface BatchSummary {
  id: string;
  session: string;
  status: BatchStatus;
  createdAt: number;
  finishedAt?: number;
  calls: number;
  failed: number;
}

/** One call as `toolgate journal export` writes it (one JSON line each). */
export interface ExportedCall {
  batch: string;
  session: string;
  batchStatus: string;
  batchCreatedAt: number;
  index: number;
  callId: string;
  tool: string;
  arguments: unknown;
  status: string;
  decision: unknown;
  result: unknown;
  startedAt: number | null;
  finishedAt: number | null;
}

/** One governance mode change: what, why, who, when (ms since the epoch). */
export interface ModeRecord {
  seq: number;
  mode: GovernanceMode;
  reason: string;
  actor: string;
  at: number;
}

export interface MessageRecord {
  seq: number;
  role: 'user' | 'assistant' | 'tool';
  batchId?: string;
  callId?: string;
  content: unknown;
}

/**
 * The durable store behind the pipeline. One small interface, one SQLite implementation now
 * (PostgreSQL later), and one conformance suite every implementation must pass
 * (`test/journal/journal-conformance.ts`). Every write is committed before the method returns: it
 * survives the process being killed. `sync()` makes everything committed so far survive a power
 * loss too; the pipeline awaits it where a side effect depends on it (docs/DURABILITY.md).
 */
export interface Journal {
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
  /**
   * Issue #17 §3. The calls waiting for a person that nobody has answered yet, oldest first: each
   * with the confirmation request (the preview) it was asked with.
   */
  pendingApprovals(): PendingApproval[];
  /**
   * Records a person's answer to one waiting call, from any process. The first answer wins: false
   * when the call is not waiting (answered, or its batch moved on). On PostgreSQL the waiting
   * worker is woken (NOTIFY) by the same commit.
   */
  answerApproval(answer: Omit<ApprovalAnswer, 'at'>): boolean;
  /** The answers recorded for one batch's calls. */
  approvalAnswers(batchId: string): ApprovalAnswer[];
  /**
   * Resolves when answers may have changed: on PostgreSQL when one is committed (LISTEN), else
   * after `waitMs` (the caller backs off); at once when `signal` aborts.
   */
  approvalsChanged(signal: AbortSignal, waitMs: number): Promise<void>;
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

  appendMessage(session: string, role: MessageRecord['role'], content: unknown): void;
  messages(session: string): MessageRecord[];

  getReadRecord(session: string, path: string): ReadRecord | undefined;
  /** Kept with the next commit (the call's result): as durable as the result of the call that read. */
  putReadRecord(session: string, path: string, record: ReadRecord): void;
  deleteReadRecord(session: string, path: string): void;

  /**
   * Retention: removes complete batches created before `before` (ms), their calls, and the
   * conversation messages as old; never an open batch or one waiting for approval.
   */
  prune(before: number, maxBatches?: number): { batches: number; calls: number; messages: number };
  /** Every call of batches created at or after `since` (ms), oldest first, for audit systems. */
  exportCalls(since: number): Iterable<ExportedCall>;

  /** Refused calls at these times (ms), for the automatic governor; entries older than a day go. */
  noteRefusals(times: readonly number[]): void;
  /** How many refused calls were noted at or after `since` (ms), by any process on this journal. */
  refusalsSince(since: number): number;

  /** The governance mode last set on this journal (`toolgate mode set`), if any. */
  governanceMode(): ModeRecord | undefined;
  /** Records a mode change (committed; `sync()` after it for a power loss too). */
  recordMode(mode: GovernanceMode, reason: string, actor: string): ModeRecord;
  /** Mode changes, newest first. */
  modeHistory(limit: number): ModeRecord[];

  /** The session's todo list (write_todos), in order. */
  todos(session: string): Todo[];
  /** Replaces the session's todo list in one commit. */
  saveTodos(session: string, todos: readonly Todo[]): void;

  /** "Always allow" grants: this session's and every project-wide one, with their ids. */
  listGrants(session: string): Grant[];
  addGrant(grant: Grant): void;
  /** Every grant of every session, oldest first (`toolgate grants list`). */
  allGrants(): Grant[];
  /** Removes one grant (committed: the next plan of any process no longer sees it); false if none has that id. */
  revokeGrant(id: number): boolean;
  /** Removes every grant, or only the grants of one session; returns how many went. */
  revokeGrants(session?: string): number;

  /** Calls of a tool started since `since` (ms), across sessions: backs per-hour rate limits. */
  countCallsSince(tool: string, since: number): number;

  batch(batchId: string): BatchRecord | undefined;
  /** Ids of batches that start with `prefix` (ids print shortened), at most `limit`. */
  batchIdsStartingWith(prefix: string, limit: number): string[];
  recentBatches(limit: number): BatchSummary[];
  incompleteBatches(): BatchRecord[];
  /** Recovery: a `running` call becomes `unknown` ("outcome unknown: interrupted"), unstarted ones `not_run` ("not executed: …it never ran"). */
  resumeBatch(batchId: string, worker?: string): ToolResult[];
  /** Recovery: calls stay visible, every result is marked failed (the original is kept for audit). */
  discardBatch(batchId: string, worker?: string): ToolResult[];

  close(): void;
}

/** A call waiting for a person (issue #17 §3). */
export interface PendingApproval {
  batchId: string;
  index: number;
  session: string;
  /** When its batch was recorded (ms since the epoch). */
  requestedAt: number;
  request: ConfirmationRequest;
}

/** A person's answer to a waiting call, bound to the preview they saw (previewHash). */
export interface ApprovalAnswer {
  batchId: string;
  index: number;
  approved: boolean;
  /** With an approval: remember it for the session or the project ("always"). */
  scope?: 'session' | 'project';
  reason?: string;
  /** previewHash of the request the person was shown. */
  preview: string;
  /** Who answered (login and host), for the audit trail. */
  by: string;
  at: number;
}

/** One call of a batch recorded after it ran (`recordFinishedBatch`), in call order. */
export interface FinishedCall {
  result: ToolResult;
  status: 'done' | 'denied' | 'unknown';
  /** When it started (absent: it never started, e.g. refused at planning). */
  startedAt?: number;
  finishedAt: number;
}

export interface PlanEntry {
  index: number;
  decision?: PolicyDecision;
  approval?: ConfirmationRequest;
}

export interface BeginBatchOptions {
  assistantText?: string;
  /** More of the assistant message to keep with it (provider, model, the raw turn for a verbatim echo). */
  assistant?: Record<string, unknown>;
  batchId?: string;
  plan?: readonly PlanEntry[];
  /**
   * false: no conversation messages for this batch (an MCP client keeps its own conversation; the
   * batch and its calls, with every result, are still journaled), except an assistant record
   * when `assistant` holds something the calls do not. Default true.
   */
  messages?: boolean;
  /** The worker running the batch, which holds it for `ttlMs` at a time (renewLease). */
  lease?: Lease;
  /**
   * The call at this index starts at once (nothing in the batch waits for a person): a journal
   * with `beginsRunning` records it `running` in the batch's own commit, one commit fewer before
   * it starts. Others ignore it (the call is marked running as it starts, as for any call).
   */
  running?: number;
}

/**
 * A worker's hold on a batch it runs (issue #17 §2): `worker` is the process's id, and the lease
 * lasts `ttlMs` from when it is taken or renewed (by the journal's clock: the server's for
 * PostgreSQL, so workers on machines whose clocks differ still agree).
 */
export interface Lease {
  worker: string;
  ttlMs: number;
}

/** A journal problem: what failed, where, and what to do. Nothing runs after one at batch start. */
export class JournalError extends Error {
  /**
   * The write may have been committed all the same (a server that did not answer in time, or a
   * connection lost while it committed): its outcome is unknown, not a failure.
   */
  readonly outcomeUnknown: boolean;

  constructor(message: string, options: { outcomeUnknown?: boolean } = {}) {
    super(message);
    this.name = 'JournalError';
    this.outcomeUnknown = options.outcomeUnknown === true;
  }
}
