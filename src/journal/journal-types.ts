import type { ConfirmationRequest } from '../core/confirmation.js';
import type { PolicyDecision } from '../core/policy-decision.js';
import type { GovernanceMode } from '../core/tier.js';
import type { ToolCall } from '../core/tool-call.js';
import type { ToolResult } from '../core/tool-result.js';

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
