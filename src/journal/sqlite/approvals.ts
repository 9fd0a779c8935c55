import { answerRow } from '../common/answer-row.js';
import { waitForChange } from '../common/wait-for-change.js';
import { type AnswerRow, approvalAnswer, type PendingRow, pendingApproval } from '../journal-records.js';
import type { ApprovalAnswer, PendingApproval } from '../journal-types.js';
import type { ApprovalQueue } from '../roles/approval-queue.js';
import { answerFields, seal, sealValid } from '../state-seal.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * The approval queue on SQLite (issue #17 §3): calls waiting for a person, and the answers given
 * from anywhere, each sealed by this user's key (an answer planted with the journal answers nothing).
 */
export class SqliteApprovals implements ApprovalQueue {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  pendingApprovals(): PendingApproval[] {
    return (this.#ctx.stmt.pendingApprovals.all() as PendingRow[]).map(pendingApproval);
  }

  answerApproval(answer: Omit<ApprovalAnswer, 'at'>): boolean {
    const ctx = this.#ctx;
    const key = ctx.seals.keyToWrite('an approval answer');
    const row = answerRow(answer, Date.now());
    const changes = ctx.write(() => {
      // An answer this user's toolgate did not write (planted with the journal) holds nobody's
      // place: it is dropped, so the person's own answer is the one recorded.
      const old = ctx.stmt.answerOf.get(row.batch_id, row.call_index) as
        | (AnswerRow & { seal: string | null })
        | undefined;
      if (old && !sealValid(key, 'answer', answerFields(old), old.seal))
        ctx.stmt.dropAnswer.run(row.batch_id, row.call_index);
      return ctx.stmt.answerApproval.run({
        batch: row.batch_id,
        index: row.call_index,
        approved: row.approved ? 1 : 0,
        scope: row.scope,
        reason: row.reason,
        preview: row.preview,
        by: row.answered_by,
        at: row.answered_at,
        seal: seal(key, 'answer', answerFields(row)),
      }).changes;
    });
    return changes > 0;
  }

  /** Only answers this user's toolgate recorded here (sealed): a planted one answers nothing. */
  approvalAnswers(batchId: string): ApprovalAnswer[] {
    const key = this.#ctx.seals.keyToRead();
    return (this.#ctx.stmt.approvalAnswers.all(batchId) as (AnswerRow & { seal: string | null })[])
      .filter((r) => sealValid(key, 'answer', answerFields(r), r.seal))
      .map(approvalAnswer);
  }

  /** SQLite has no notifications: the caller looks again after `waitMs` (and backs off). */
  approvalsChanged(signal: AbortSignal, waitMs: number): Promise<void> {
    return waitForChange(signal, waitMs);
  }
}
