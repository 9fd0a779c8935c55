import type { ApprovalDecision, Approver, ConfirmationRequest } from '../core/confirmation.js';
import { previewHash } from '../core/preview-hash.js';
import type { ApprovalAnswer, ApprovalQueue, BatchHistory } from '../journal/journal.js';

/** The first look again after 10 ms, then less often, never more than 80 ms apart (on SQLite). */
const FIRST_WAIT_MS = 10;
const MOST_WAIT_MS = 80;

/** A call waiting for an answer given elsewhere: its batch, its place in the batch, what is asked. */
export interface WaitingCall {
  batchId: string;
  index: number;
  request: ConfirmationRequest;
}

/**
 * `--approve remote` (issue #17 §3): asks nobody here. The batch's confirmations are already in
 * the journal (recorded, and synced, before anyone is asked); this waits for answers given with
 * `toolgate approvals approve|deny` (or the web console) from any machine with the journal, and
 * applies an answer only to the call whose preview has the hash the person answered. The approval
 * timeout still applies (no answer in time is a denial), and so does a cancel. `onWaiting` hears
 * which calls wait, once per batch, when an answer is not there at once (issue #31 §3: the CLI
 * says how to answer rather than waiting silently).
 */
export function remoteApprover(
  journal: ApprovalQueue & BatchHistory,
  onWaiting?: (calls: readonly WaitingCall[]) => void,
): Approver {
  return async (requests, signal, context): Promise<ApprovalDecision> => {
    const batchId = context?.batchId;
    if (!batchId)
      return {
        kind: 'deny_all',
        reason:
          'approval was to come from elsewhere (--approve remote), but this batch is not in the journal, so nobody could be asked; run with a journal',
      };
    // Each question is the batch's next waiting call with that id, in order: two calls may share an
    // id (a model's mistake), and each question keeps its own call.
    const waiting = (journal.batch(batchId)?.calls ?? []).filter((c) => c.status === 'awaiting_approval');
    const indexOf = requests.map((r) => {
      const k = waiting.findIndex((c) => c.id === r.callId);
      return k === -1 ? -1 : (waiting.splice(k, 1)[0]?.index ?? -1);
    });
    let wait = FIRST_WAIT_MS;
    let told = false;
    for (;;) {
      const answers = new Map<number, ApprovalAnswer>();
      for (const a of journal.approvalAnswers(batchId)) answers.set(a.index, a);
      const decided = requests.map((r, i) => decide(r, answers.get(indexOf[i] ?? -1)));
      if (decided.every((d) => d !== undefined)) return combine(requests, decided);
      if (signal.aborted) return { kind: 'deny_all', reason: 'no answer came from elsewhere in time' };
      if (!told && onWaiting) {
        told = true;
        onWaiting(
          requests.flatMap((request, i) => {
            const index = indexOf[i] ?? -1;
            return decided[i] === undefined && index !== -1 ? [{ batchId, index, request }] : [];
          }),
        );
      }
      await journal.approvalsChanged(signal, wait);
      wait = Math.min(wait * 2, MOST_WAIT_MS);
    }
  };
}

type Decided = { approved: true; scope?: 'session' | 'project' } | { approved: false; reason: string };

/** An answer counts only for the exact preview it was given for. */
function decide(request: ConfirmationRequest, answer: ApprovalAnswer | undefined): Decided | undefined {
  if (!answer) return undefined;
  if (answer.preview !== previewHash(request))
    return {
      approved: false,
      reason: `${answer.by} answered a different preview of this call than the one waiting (it changed since), so the answer does not apply`,
    };
  if (!answer.approved)
    return { approved: false, reason: `denied by ${answer.by}${answer.reason ? `: ${answer.reason}` : ''}` };
  return { approved: true, ...(answer.scope ? { scope: answer.scope } : {}) };
}

function combine(
  requests: readonly ConfirmationRequest[],
  decided: (Decided | undefined)[],
): ApprovalDecision {
  const ids: string[] = [];
  const remember: Record<string, 'session' | 'project'> = {};
  let reason: string | undefined;
  for (const [i, d] of decided.entries()) {
    const id = (requests[i] as ConfirmationRequest).callId;
    if (d?.approved) {
      ids.push(id);
      if (d.scope) remember[id] = d.scope;
    } else if (d) reason ??= d.reason;
  }
  if (ids.length === 0) return { kind: 'deny_all', reason: reason ?? 'denied from elsewhere' };
  return { kind: 'approve_selected', ids, remember };
}
