import os from 'node:os';
import { describeGrant } from '../approval/grant-coverage.js';
import { alwaysLines, alwaysOffered, detailBlock, extraLines } from '../approval/request-text.js';
import { previewHash } from '../core/preview-hash.js';
import type { Journal, PendingApproval } from '../journal/journal.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { findBatchId } from './find-batch.js';
import { journalPath, openJournalOrStop } from './open-journal.js';
import { resolveSetup } from './resolve-setup.js';
import { UsageError } from './usage-error.js';

export interface ApprovalsOptions {
  root?: string[];
  config?: string;
  journal?: string;
  json?: boolean;
  always?: string;
  reason?: string;
  preview?: string;
}

type Out = NodeJS.WritableStream;

/** An approval's id as shown: `<batch id>.<call number>` (the batch id may be shortened). */
const approvalId = (p: Pick<PendingApproval, 'batchId' | 'index'>) => `${p.batchId}.${p.index + 1}`;

function withJournal<T>(options: ApprovalsOptions, use: (journal: Journal) => T): T {
  const journal = openJournalOrStop(journalPath(resolveSetup(options), options.journal));
  try {
    return use(journal);
  } finally {
    journal.close();
  }
}

/** The waiting call an id names (its batch id may be typed shortened, like a commit's). */
function findPending(journal: Journal, typed: string): PendingApproval {
  const dot = typed.lastIndexOf('.');
  const n = Number(typed.slice(dot + 1));
  if (dot <= 0 || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(
      `"${typed}" is not an approval id: ids look like BATCH.N (see \`toolgate approvals list\`)`,
    );
  const batchId = findBatchId(journal, typed.slice(0, dot), 'toolgate approvals list');
  const pending = journal.pendingApprovals().find((p) => p.batchId === batchId && p.index === n - 1);
  if (!pending)
    throw new UsageError(
      `call ${n} of batch ${batchId} is not waiting for an answer (answered already, or its batch moved on); see \`toolgate approvals list\``,
    );
  return pending;
}

/** `toolgate approvals list [--json]`: every call waiting for a person, from any process. */
export function runApprovalsList(options: ApprovalsOptions, out: Out): number {
  return withJournal(options, (journal) => {
    const pending = journal.pendingApprovals();
    if (options.json) {
      out.write(
        `${JSON.stringify(
          pending.map((p) => ({
            id: approvalId(p),
            tool: p.request.toolName,
            summary: p.request.summary,
            session: p.session,
            requested_at: new Date(p.requestedAt).toISOString(),
          })),
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    if (pending.length === 0) {
      out.write('Nothing is waiting for an answer.\n');
      return 0;
    }
    for (const p of pending)
      out.write(
        `${sanitizeForTerminal(`${approvalId(p)}  ${p.request.toolName}  ${p.request.summary}  (session ${p.session}, ${new Date(p.requestedAt).toISOString()})`)}\n`,
      );
    return 0;
  });
}

/** `toolgate approvals show ID`: the whole preview a person answers, and its hash. */
export function runApprovalsShow(id: string, options: ApprovalsOptions, out: Out): number {
  return withJournal(options, (journal) => {
    const p = findPending(journal, id);
    const r = p.request;
    // Exact and whole (issue #30 §1-2): the fields are shown text (showExact), the full text is
    // never cut, and the preview hash below binds all of it.
    const lines = [
      `approval ${approvalId(p)} (session ${p.session}, asked ${new Date(p.requestedAt).toISOString()})`,
      `tool:     ${r.toolName} (risk ${r.risk})`,
      `summary:  ${r.summary}`,
      ...extraLines(r, '', (name) => `${`${name}:`.padEnd(9)} `),
      ...(r.locations.length
        ? [`touches:  ${r.locations.map((l) => `${l.path} (${l.access})`).join(', ')}`]
        : []),
      `why:      ${r.reason} (${r.rule})`,
      ...(r.message ? [`note:     ${r.message}`] : []),
      ...(r.detail !== undefined ? detailBlock(r.detail, '') : []),
      ...alwaysLines(r, '', (name) => `${`${name}:`.padEnd(9)} `, 'journal'),
      `preview:  ${previewHash(r)}`,
    ];
    out.write(`${sanitizeForTerminal(lines.join('\n'))}\n`);
    return 0;
  });
}

function answer(id: string, approved: boolean, options: ApprovalsOptions, out: Out): number {
  if (!approved && !options.reason?.trim())
    throw new UsageError('deny needs --reason TEXT (the model is told it)');
  const scope = options.always;
  if (scope !== undefined && scope !== 'session' && scope !== 'project')
    throw new UsageError(`--always must be session or project (got "${scope}")`);
  return withJournal(options, (journal) => {
    const p = findPending(journal, id);
    const preview = previewHash(p.request);
    // "always" only where the call has an offer (issue #30 §5): otherwise the grant would be empty
    // while the person believes the call is remembered.
    if (approved && scope && !alwaysOffered(p.request))
      throw new UsageError(
        `approve ${approvalId(p)} without --always: ${describeGrant(p.request, scope as 'session' | 'project')}`,
      );
    // Bound to what was looked at: an answer given for another preview never applies.
    if (options.preview !== undefined && options.preview !== preview)
      throw new UsageError(
        `the call ${approvalId(p)} is not the one you looked at (its preview is ${preview}, not ${options.preview}); look again with \`toolgate approvals show\``,
      );
    const recorded = journal.answerApproval({
      batchId: p.batchId,
      index: p.index,
      approved,
      ...(approved && scope ? { scope: scope as 'session' | 'project' } : {}),
      ...(!approved && options.reason ? { reason: options.reason } : {}),
      preview,
      by: `${os.userInfo().username}@${os.hostname()}`,
    });
    if (!recorded) throw new UsageError(`call ${approvalId(p)} was answered by someone else meanwhile`);
    out.write(
      `${approved ? 'approved' : 'denied'} ${approvalId(p)}${approved && scope ? ` (${describeGrant(p.request, scope as 'session' | 'project')})` : ''}\n`,
    );
    return 0;
  });
}

export function runApprovalsApprove(id: string, options: ApprovalsOptions, out: Out): number {
  return answer(id, true, options, out);
}

export function runApprovalsDeny(id: string, options: ApprovalsOptions, out: Out): number {
  return answer(id, false, options, out);
}
