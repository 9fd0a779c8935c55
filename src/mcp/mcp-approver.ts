import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { BLOCK_MARK, charCount } from '../approval/request-text.js';
import type { ApprovalDecision, Approver, ConfirmationRequest } from '../core/confirmation.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';

/**
 * What each elicitation answer means. A host may decline or cancel without showing anyone the
 * question (Codex and Claude Code in headless runs do), so the words do not claim a person did.
 */
const ELICITATION_OUTCOME = {
  accept: 'the approval form came back without approving it',
  decline: 'the MCP client declined the approval request (it may not have shown it to anyone)',
  cancel: 'the MCP client cancelled the approval request (it may not have shown it to anyone)',
} as const;

/**
 * How much an approval question may hold, in characters: an MCP host shows it in a dialog of its
 * own (Claude Code's and Codex's are a screen at most), so more than this is not reliably read
 * whole there. A question that needs more is not approvable there (issue #30 §2).
 */
export const ELICITATION_MAX_CHARS = 2000;

/** One request's lines that are always shown, and its long parts (shown while they fit). */
function partsOf(r: ConfirmationRequest, n: number): { head: string; long: string } {
  const head = `${n}. [${r.risk}] ${r.toolName}: ${r.summary}\n   why asked: ${r.reason}${r.message ? `\n   note: ${r.message}` : ''}`;
  const long = [
    ...(r.summaryFull !== undefined ? [`   summary in full: ${r.summaryFull}`] : []),
    ...(r.commands?.length ? [`   sub-commands: ${r.commands.join('  ·  ')}`] : []),
    ...(r.detail !== undefined
      ? ['   full text:', ...r.detail.split('\n').map((l) => `   ${BLOCK_MARK}${l}`)]
      : []),
  ].join('\n');
  return { head, long };
}

/** Where a person reads a call whole, and approves it when it cannot be approved here. */
function whereWhole(r: ConfirmationRequest, batchId: string | undefined): string {
  if (batchId === undefined || r.index === undefined)
    return 'there is no journal here (--no-journal), so it can be read whole nowhere else: run `toolgate mcp` with a journal and --approve remote, then read it with `toolgate approvals show` (or the web console) and answer there';
  return `read it whole with \`toolgate approvals show ${batchId}.${r.index + 1}\` (or the web console, \`toolgate serve\`); to approve calls this large, run \`toolgate mcp --approve remote\` and answer with \`toolgate approvals approve\``;
}

/**
 * The question for a batch: everything, when it fits; otherwise every call's title and reason,
 * its full text while room is left, and exactly how much of which call is not shown.
 */
export function elicitationText(
  requests: readonly ConfirmationRequest[],
  batchId?: string,
): { message: string; hidden: number; tooLarge: ConfirmationRequest[] } {
  const intro = `toolgate asks before running ${requests.length} call(s):`;
  const parts = requests.map((r, i) => partsOf(r, i + 1));
  const whole = [intro, ...parts.map((p) => (p.long ? `${p.head}\n${p.long}` : p.head))].join('\n');
  if (charCount(whole) <= ELICITATION_MAX_CHARS) return { message: whole, hidden: 0, tooLarge: [] };
  let room = ELICITATION_MAX_CHARS - charCount([intro, ...parts.map((p) => p.head)].join('\n'));
  let hidden = 0;
  const tooLarge: ConfirmationRequest[] = [];
  const shown = parts.map((p, i) => {
    if (!p.long) return p.head;
    const chars = Array.from(p.long);
    const keep = Math.max(0, Math.min(chars.length, room - 1));
    room -= keep + 1;
    if (keep === chars.length) return `${p.head}\n${p.long}`;
    const r = requests[i] as ConfirmationRequest;
    tooLarge.push(r);
    hidden += chars.length - keep;
    return `${p.head}\n${chars.slice(0, keep).join('')}\n   [${chars.length - keep} of the ${chars.length} characters of call ${i + 1}'s full text are NOT shown here: this dialog holds ${ELICITATION_MAX_CHARS}; ${whereWhole(r, batchId)}]`;
  });
  const message = [
    `NOT APPROVABLE HERE: too large for this dialog (${hidden} characters not shown). Answering only denies.`,
    intro,
    ...shown,
  ].join('\n');
  return { message, hidden, tooLarge };
}

/**
 * Approvals over MCP (issue #6): with elicitation, each batch's confirmations become one form the
 * person answers; without it, a denial (the pipeline adds the config line that would allow the call). Never a
 * silent allow: a declined, cancelled or failed elicitation is a denial. A batch too large to show
 * in the host's dialog is shown as far as it fits, says what is hidden and where to read it whole,
 * and is denied whatever the answer (issue #30 §2: nothing is approved unseen).
 */
export function mcpApprover(server: Server, clientGone?: AbortSignal): Approver {
  return async (requests, callSignal, context): Promise<ApprovalDecision> => {
    if (!server.getClientCapabilities()?.elicitation) {
      return {
        kind: 'deny_all',
        reason: 'this MCP client cannot ask anyone for approval (it does not support elicitation)',
      };
    }
    const { message, hidden, tooLarge } = elicitationText(requests, context?.batchId);
    // A client that closed its end can answer nothing: the question is not left waiting for it.
    const signal = clientGone ? AbortSignal.any([callSignal, clientGone]) : callSignal;
    try {
      const answer = await server.elicitInput(
        {
          message: sanitizeForTerminal(message),
          requestedSchema:
            hidden > 0
              ? {
                  type: 'object',
                  properties: {
                    deny: {
                      type: 'boolean',
                      title: 'Deny (too large to approve here)',
                      description: 'Not all of it could be shown here, so it can only be denied here',
                      default: true,
                    },
                  },
                }
              : {
                  type: 'object',
                  properties: {
                    approve: { type: 'boolean', title: 'Approve', description: 'Run these calls' },
                  },
                  required: ['approve'],
                },
        },
        { signal },
      );
      if (hidden > 0) {
        const first = tooLarge[0] as ConfirmationRequest;
        return {
          kind: 'deny_all',
          reason: `the approval question was too large for the MCP client's dialog (${hidden} characters could not be shown), and what a person has not seen is not approved; a person can ${whereWhole(first, context?.batchId)}`,
        };
      }
      if (answer.action === 'accept' && answer.content?.approve === true) return { kind: 'approve_all' };
      return { kind: 'deny_all', reason: ELICITATION_OUTCOME[answer.action] };
    } catch (error) {
      if (clientGone?.aborted && !callSignal.aborted)
        return {
          kind: 'deny_all',
          reason: 'the MCP client closed its connection before answering the approval request',
        };
      return { kind: 'deny_all', reason: `the approval request failed (${(error as Error).message})` };
    }
  };
}
