import type { ApprovalAnswer, PendingApproval } from '../journal-types.js';

/**
 * The approval queue (issue #17 §3): calls waiting for a person, and the answers, from any process.
 */
export interface ApprovalQueue {
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
}
