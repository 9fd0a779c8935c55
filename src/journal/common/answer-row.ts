import type { AnswerRow } from '../journal-records.js';
import type { ApprovalAnswer } from '../journal-types.js';

/** A person's answer about to be stored, as its row, answered `at` (ms). */
export function answerRow(answer: Omit<ApprovalAnswer, 'at'>, at: number): AnswerRow & { approved: boolean } {
  return {
    batch_id: answer.batchId,
    call_index: answer.index,
    approved: answer.approved,
    scope: answer.scope ?? null,
    reason: answer.reason ?? null,
    preview: answer.preview,
    answered_by: answer.by,
    answered_at: at,
  };
}
