import type { ConfirmationRequest } from '../core/confirmation.js';
import { errorResult } from '../core/make-result.js';
import type { GovernanceMode } from '../core/tier.js';
import type { ToolCall } from '../core/tool-call.js';
import type { ToolResult } from '../core/tool-result.js';
import {
  type ApprovalAnswer,
  type BatchRecord,
  type BatchStatus,
  type CallRecord,
  type CallStatus,
  type ExportedCall,
  JournalError,
  type ModeRecord,
  type PendingApproval,
  type PlanEntry,
} from './journal.js';
import { workerGone } from './process-identity.js';

/**
 * The rows every journal store keeps (SQLite and PostgreSQL share the columns: times in ms since
 * the epoch, JSON as text) and the records they become; and how recovery settles a call. One place,
 * so the stores cannot drift apart.
 */
export interface CallRow {
  call_index: number;
  call_id: string;
  name: string;
  arguments: string;
  status: CallStatus;
  decision: string | null;
  approval: string | null;
  result: string | null;
  started_at: number | null;
  finished_at: number | null;
}

export interface BatchRow {
  id: string;
  session_id: string;
  status: BatchStatus;
  assistant_text: string | null;
  created_at: number;
  finished_at: number | null;
  owner: string | null;
  lease_owner?: string | null;
  lease_expires?: number | null;
}

export type ModeRow = { seq: number; mode: string; reason: string; actor: string; created_at: number };

export type ExportRow = CallRow & {
  batch_id: string;
  session_id: string;
  batch_status: string;
  batch_created_at: number;
};

/** A policy decision as the journal keeps it (null: none was made). */
export function decisionJson(entry: PlanEntry | undefined): string | null {
  const d = entry?.decision;
  return d ? JSON.stringify({ action: d.action, rule: d.rule, file: d.file, reason: d.reason }) : null;
}

/** The key of a pending read-cache change. */
export function readKey(session: string, file: string): string {
  return `${session}\0${file}`;
}

export function callRecord(c: CallRow): CallRecord {
  return {
    index: c.call_index,
    id: c.call_id,
    name: c.name,
    arguments: JSON.parse(c.arguments) as ToolCall['arguments'],
    status: c.status,
    ...(c.decision ? { decision: JSON.parse(c.decision) as CallRecord['decision'] } : {}),
    ...(c.approval ? { approval: JSON.parse(c.approval) as ConfirmationRequest } : {}),
    ...(c.result ? { result: JSON.parse(c.result) as ToolResult } : {}),
    ...(c.started_at ? { startedAt: c.started_at } : {}),
    ...(c.finished_at ? { finishedAt: c.finished_at } : {}),
  };
}

export function batchRecord(row: BatchRow, calls: CallRecord[]): BatchRecord {
  return {
    id: row.id,
    session: row.session_id,
    status: row.status,
    createdAt: row.created_at,
    ...(row.finished_at ? { finishedAt: row.finished_at } : {}),
    ...(row.assistant_text ? { assistantText: row.assistant_text } : {}),
    ...(row.owner ? { owner: row.owner } : {}),
    ...(row.lease_owner && row.lease_expires
      ? { lease: { worker: row.lease_owner, expiresAt: row.lease_expires } }
      : {}),
    calls,
  };
}

export function modeRecord(row: ModeRow): ModeRecord {
  return {
    seq: Number(row.seq),
    mode: row.mode as GovernanceMode,
    reason: row.reason,
    actor: row.actor,
    at: row.created_at,
  };
}

export function exportedCall(row: ExportRow): ExportedCall {
  return {
    batch: row.batch_id,
    session: row.session_id,
    batchStatus: row.batch_status,
    batchCreatedAt: row.batch_created_at,
    index: row.call_index,
    callId: row.call_id,
    tool: row.name,
    arguments: JSON.parse(row.arguments),
    status: row.status,
    decision: row.decision ? JSON.parse(row.decision) : null,
    result: row.result ? JSON.parse(row.result) : null,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** How recovery settles one call of an interrupted batch; undefined: its committed result stays. */
export type Settlement = { result: ToolResult; status: CallStatus; discard: boolean } | undefined;

/** FR-RES-04c: resuming never runs anything again: a running call's outcome is unknown. */
export function resumeSettlement(call: CallRecord): Settlement {
  if (call.result) return undefined;
  if (call.status === 'running') {
    return {
      result: errorResult(
        call.id,
        call.name,
        'ExecutionFailed',
        'outcome unknown: interrupted (toolgate stopped while this call ran; it was not run again, check its effects before retrying)',
      ),
      status: 'unknown',
      discard: false,
    };
  }
  return {
    result: errorResult(
      call.id,
      call.name,
      'Cancelled',
      'not executed: toolgate stopped before this call started (it never ran)',
    ),
    status: 'not_run',
    discard: false,
  };
}

/** FR-RES-05: discarding says exactly what is known: it ran, it may have run, or it never started. */
export function discardSettlement(call: CallRecord): Settlement {
  const [message, status]: [string, CallStatus] = call.result
    ? ['result discarded during recovery (the call ran; its effects were not undone)', 'done']
    : call.status === 'running'
      ? [
          'result discarded during recovery (the call was running when toolgate stopped, so it may have run; its effects were not undone)',
          'unknown',
        ]
      : ['not executed: its batch was discarded during recovery before it started (it never ran)', 'not_run'];
  return { result: errorResult(call.id, call.name, 'Cancelled', message), status, discard: true };
}

/**
 * A batch given up on (Journal.giveUp) whose first commit landed after all: nothing of it ran here
 * (not even a call its commit marked running), and the model was told so; every call without a
 * result is settled as never run.
 */
export function givenUpSettlement(call: CallRecord): Settlement {
  if (call.result) return undefined;
  return {
    result: errorResult(
      call.id,
      call.name,
      'Cancelled',
      'not executed: toolgate gave up on this batch when the journal did not confirm it, before anything ran (it never ran)',
    ),
    status: 'not_run',
    discard: true,
  };
}

/**
 * The batch, when recovery may settle it: it exists, is still incomplete, and no other worker
 * holds a lease on it that has not run out (`now`: the journal's clock; `worker`: who settles).
 */
export function settleable(
  record: BatchRecord | undefined,
  batchId: string,
  where: string,
  now?: number,
  worker?: string,
): BatchRecord {
  if (!record) throw new JournalError(`no batch with id ${batchId} in ${where}`);
  if (record.status !== 'open' && record.status !== 'awaiting_approval') {
    throw new JournalError(
      `batch ${batchId} is already ${record.status}; only incomplete batches can be recovered (see \`toolgate journal show ${batchId}\`)`,
    );
  }
  const lease = record.lease;
  if (
    now !== undefined &&
    lease &&
    lease.expiresAt >= now &&
    lease.worker !== worker &&
    !workerGone(lease.worker)
  )
    throw new JournalError(
      `batch ${batchId} is held by worker ${lease.worker} until ${new Date(lease.expiresAt).toISOString()}: it is running there, not interrupted`,
    );
  return record;
}

/** A batch begun, approved or finished here that another process settled or took over meanwhile. */
export function takenOver(batchId: string): JournalError {
  return new JournalError(
    `batch ${batchId} was settled or taken over by another process meanwhile: nothing more of it runs here (see \`toolgate journal show ${batchId}\`)`,
  );
}

/** A call that cannot start: it is not waiting to (settled, or already done), or its batch is not. */
export function notStartable(batchId: string, index: number): JournalError {
  return new JournalError(
    `call ${index + 1} of batch ${batchId} is not waiting to start (its batch was settled or taken over meanwhile): it was not started`,
  );
}

/** Why a worker may not start a call: it no longer holds the batch's lease. */
export function leaseLost(batchId: string, worker: string): JournalError {
  return new JournalError(
    `worker ${worker} no longer holds the lease on batch ${batchId} (it expired and another worker took the batch over): the call was not started`,
  );
}

export type AnswerRow = {
  batch_id: string;
  call_index: number;
  approved: number | boolean;
  scope: string | null;
  reason: string | null;
  preview: string;
  answered_by: string;
  answered_at: number;
};

export function approvalAnswer(r: AnswerRow): ApprovalAnswer {
  return {
    batchId: r.batch_id,
    index: r.call_index,
    approved: r.approved === true || r.approved === 1,
    ...(r.scope === 'session' || r.scope === 'project' ? { scope: r.scope } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
    preview: r.preview,
    by: r.answered_by,
    at: r.answered_at,
  };
}

export type PendingRow = {
  batch_id: string;
  call_index: number;
  session_id: string;
  created_at: number;
  approval: string;
};

export function pendingApproval(r: PendingRow): PendingApproval {
  return {
    batchId: r.batch_id,
    index: r.call_index,
    session: r.session_id,
    requestedAt: r.created_at,
    request: JSON.parse(r.approval) as ConfirmationRequest,
  };
}

/** The unanswered calls waiting for a person, oldest first (the same SQL on both stores). */
export const PENDING_APPROVALS_SQL = `SELECT c.batch_id, c.call_index, b.session_id, b.created_at, c.approval
  FROM calls c JOIN batches b ON b.id = c.batch_id
  WHERE b.status = 'awaiting_approval' AND c.status = 'awaiting_approval' AND c.approval IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM approval_answers a WHERE a.batch_id = c.batch_id AND a.call_index = c.call_index)
  ORDER BY b.created_at, c.batch_id, c.call_index`;
