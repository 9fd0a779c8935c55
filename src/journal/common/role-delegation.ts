import type { Grant } from '../../core/grant.js';
import type { GovernanceMode } from '../../core/tier.js';
import type { ToolResult } from '../../core/tool-result.js';
import type { ReadRecord } from '../../tools/fs/read-cache.js';
import type { Todo } from '../../tools/todos/todo-store.js';
import type {
  ApprovalAnswer,
  BatchRecord,
  BatchSummary,
  ExportedCall,
  Lease,
  MessageRecord,
  ModeRecord,
  PendingApproval,
} from '../journal-types.js';
import type { ApprovalQueue } from '../roles/approval-queue.js';
import type { BatchHistory } from '../roles/batch-history.js';
import type { BatchLeases } from '../roles/batch-leases.js';
import type { BatchRecovery } from '../roles/batch-recovery.js';
import type { ConversationLog } from '../roles/conversation-log.js';
import type { GovernanceLog } from '../roles/governance-log.js';
import type { GrantStore } from '../roles/grant-store.js';
import type { ReadRecords } from '../roles/read-records.js';
import type { Retention } from '../roles/retention.js';
import type { TodoLists } from '../roles/todo-lists.js';

/** A store's part for each role besides the batch log, each in the file of its name in the dialect's folder. */
export interface RoleParts {
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
 * adds the batch log, opening and closing itself.
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
