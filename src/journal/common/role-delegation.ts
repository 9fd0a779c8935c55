import type { Grant } from '../../core/grant.js';
import type { GovernanceMode } from '../../core/tier.js';
import type { ToolCall } from '../../core/tool-call.js';
import type { ToolResult } from '../../core/tool-result.js';
import type { ReadRecord } from '../../tools/fs/read-cache.js';
import type { Todo } from '../../tools/todos/todo-store.js';
import type {
  ApprovalAnswer,
  BatchRecord,
  BatchSummary,
  BeginBatchOptions,
  ExportedCall,
  FinishedCall,
  Lease,
  MessageRecord,
  ModeRecord,
  PendingApproval,
  PlanEntry,
} from '../journal-types.js';
import type { ApprovalQueue } from '../roles/approval-queue.js';
import type { BatchHistory } from '../roles/batch-history.js';
import type { BatchLeases } from '../roles/batch-leases.js';
import type { BatchLog } from '../roles/batch-log.js';
import type { BatchRecovery } from '../roles/batch-recovery.js';
import type { ConversationLog } from '../roles/conversation-log.js';
import type { GovernanceLog } from '../roles/governance-log.js';
import type { GrantStore } from '../roles/grant-store.js';
import type { ReadRecords } from '../roles/read-records.js';
import type { Retention } from '../roles/retention.js';
import type { TodoLists } from '../roles/todo-lists.js';

/**
 * The batch log's writes that both stores make the same way through their batches.ts; the rest of
 * the batch log (where it is, `sync()`, giving up) is each store's own.
 */
export type BatchWrites = Pick<
  BatchLog,
  | 'beginBatch'
  | 'recordFinishedBatch'
  | 'recordStreamedCall'
  | 'replan'
  | 'markApproved'
  | 'markRunning'
  | 'finishBatch'
> &
  Required<Pick<BatchLog, 'markNotStarted'>> & {
    /** Both stores finish the batch in the result's commit when asked to: true. */
    recordResult(...args: Parameters<BatchLog['recordResult']>): boolean;
  };

/** A store's part for each role, each in the file of its name in the dialect's folder. */
export interface RoleParts {
  batches: BatchWrites;
  history: BatchHistory;
  recovery: BatchRecovery;
  leases: BatchLeases;
  approvals: ApprovalQueue;
  conversation: ConversationLog;
  reads: ReadRecords;
  todos: TodoLists;
  governance: GovernanceLog;
  grants: GrantStore;
  retention: Retention;
}

/**
 * What both stores do the same way: hand each role's methods to the part that plays it. A store
 * (SqliteJournal, PostgresJournal) extends this, builds its parts over its one connection, and
 * adds the rest of the batch log (where it is, `sync()`), opening and closing itself.
 */
export abstract class RoleDelegation
  implements
    BatchHistory,
    BatchRecovery,
    BatchLeases,
    ApprovalQueue,
    ConversationLog,
    ReadRecords,
    TodoLists,
    GovernanceLog,
    GrantStore,
    Retention
{
  protected abstract readonly parts: RoleParts;

  // The batch log's writes (batches.ts).

  beginBatch(session: string, calls: readonly ToolCall[], options?: BeginBatchOptions): string {
    return this.parts.batches.beginBatch(session, calls, options);
  }

  recordFinishedBatch(
    session: string,
    calls: readonly ToolCall[],
    finished: readonly FinishedCall[],
    options?: BeginBatchOptions,
  ): string {
    return this.parts.batches.recordFinishedBatch(session, calls, finished, options);
  }

  recordStreamedCall(session: string, batchId: string, index: number, call: ToolCall, lease?: Lease): void {
    this.parts.batches.recordStreamedCall(session, batchId, index, call, lease);
  }

  /** Re-planning a pending batch (after a restart) records today's decisions over the old ones. */
  replan(batchId: string, plan: readonly PlanEntry[]): void {
    this.parts.batches.replan(batchId, plan);
  }

  markApproved(batchId: string, indexes: readonly number[], lease?: Lease): void {
    this.parts.batches.markApproved(batchId, indexes, lease);
  }

  markRunning(batchId: string, index: number, lease?: Lease): void {
    this.parts.batches.markRunning(batchId, index, lease);
  }

  markNotStarted(batchId: string, index: number): void {
    this.parts.batches.markNotStarted(batchId, index);
  }

  recordResult(
    batchId: string,
    index: number,
    result: ToolResult,
    status?: 'done' | 'denied' | 'unknown',
    finish?: { lease?: Lease },
  ): boolean {
    return this.parts.batches.recordResult(batchId, index, result, status, finish);
  }

  finishBatch(batchId: string, lease?: Lease): void {
    this.parts.batches.finishBatch(batchId, lease);
  }

  // Reading batches back (history.ts).

  batch(batchId: string): BatchRecord | undefined {
    return this.parts.history.batch(batchId);
  }

  batchIdsStartingWith(prefix: string, limit: number): string[] {
    return this.parts.history.batchIdsStartingWith(prefix, limit);
  }

  recentBatches(limit: number): BatchSummary[] {
    return this.parts.history.recentBatches(limit);
  }

  incompleteBatches(): BatchRecord[] {
    return this.parts.history.incompleteBatches();
  }

  // Recovery (recovery.ts).

  resumeBatch(batchId: string, worker?: string): ToolResult[] {
    return this.parts.recovery.resumeBatch(batchId, worker);
  }

  discardBatch(batchId: string, worker?: string): ToolResult[] {
    return this.parts.recovery.discardBatch(batchId, worker);
  }

  // Leases (leases.ts).

  renewLease(batchId: string, lease: Lease): boolean {
    return this.parts.leases.renewLease(batchId, lease);
  }

  claimExpiredBatch(lease: Lease, batchId?: string): BatchRecord | undefined {
    return this.parts.leases.claimExpiredBatch(lease, batchId);
  }

  // The approval queue (approvals.ts).

  pendingApprovals(): PendingApproval[] {
    return this.parts.approvals.pendingApprovals();
  }

  answerApproval(answer: Omit<ApprovalAnswer, 'at'>): boolean {
    return this.parts.approvals.answerApproval(answer);
  }

  approvalAnswers(batchId: string): ApprovalAnswer[] {
    return this.parts.approvals.approvalAnswers(batchId);
  }

  approvalsChanged(signal: AbortSignal, waitMs: number): Promise<void> {
    return this.parts.approvals.approvalsChanged(signal, waitMs);
  }

  // The conversation (conversation.ts).

  appendMessage(session: string, role: MessageRecord['role'], content: unknown): void {
    this.parts.conversation.appendMessage(session, role, content);
  }

  messages(session: string): MessageRecord[] {
    return this.parts.conversation.messages(session);
  }

  // Read records (read-records.ts).

  getReadRecord(session: string, file: string): ReadRecord | undefined {
    return this.parts.reads.getReadRecord(session, file);
  }

  putReadRecord(session: string, file: string, record: ReadRecord): void {
    this.parts.reads.putReadRecord(session, file, record);
  }

  deleteReadRecord(session: string, file: string): void {
    this.parts.reads.deleteReadRecord(session, file);
  }

  // Todo lists (todos.ts).

  todos(session: string): Todo[] {
    return this.parts.todos.todos(session);
  }

  saveTodos(session: string, todos: readonly Todo[]): void {
    this.parts.todos.saveTodos(session, todos);
  }

  // Governance (governance.ts).

  noteRefusals(times: readonly number[]): void {
    this.parts.governance.noteRefusals(times);
  }

  refusalsSince(since: number): number {
    return this.parts.governance.refusalsSince(since);
  }

  governanceMode(): ModeRecord | undefined {
    return this.parts.governance.governanceMode();
  }

  recordMode(mode: GovernanceMode, reason: string, actor: string): ModeRecord {
    return this.parts.governance.recordMode(mode, reason, actor);
  }

  modeHistory(limit: number): ModeRecord[] {
    return this.parts.governance.modeHistory(limit);
  }

  countCallsSince(tool: string, since: number): number {
    return this.parts.governance.countCallsSince(tool, since);
  }

  // Grants (grants.ts).

  listGrants(session: string): Grant[] {
    return this.parts.grants.listGrants(session);
  }

  addGrant(grant: Grant): void {
    this.parts.grants.addGrant(grant);
  }

  allGrants(): Grant[] {
    return this.parts.grants.allGrants();
  }

  revokeGrant(id: number): boolean {
    return this.parts.grants.revokeGrant(id);
  }

  revokeGrants(session?: string): number {
    return this.parts.grants.revokeGrants(session);
  }

  // Retention (retention.ts).

  prune(before: number, maxBatches?: number): { batches: number; calls: number; messages: number } {
    return this.parts.retention.prune(before, maxBatches);
  }

  exportCalls(since: number): Iterable<ExportedCall> {
    return this.parts.retention.exportCalls(since);
  }
}
