import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ApprovalDecision, Approver } from '../core/confirmation.js';
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
 * Approvals over MCP (issue #6): with elicitation, each batch's confirmations become one form the
 * person answers; without it, a denial (the pipeline adds the config line that would allow the call). Never a
 * silent allow: a declined, cancelled or failed elicitation is a denial.
 */
export function mcpApprover(server: Server, clientGone?: AbortSignal): Approver {
  return async (requests, callSignal): Promise<ApprovalDecision> => {
    if (!server.getClientCapabilities()?.elicitation) {
      return {
        kind: 'deny_all',
        reason: 'this MCP client cannot ask anyone for approval (it does not support elicitation)',
      };
    }
    const lines = requests.map((r, i) => {
      const detail = r.detail && r.detail !== r.summary ? `\n   full: ${r.detail}` : '';
      return `${i + 1}. [${r.risk}] ${r.toolName}: ${r.summary}${detail}\n   why asked: ${r.reason}`;
    });
    // A client that closed its end can answer nothing: the question is not left waiting for it.
    const signal = clientGone ? AbortSignal.any([callSignal, clientGone]) : callSignal;
    try {
      const answer = await server.elicitInput(
        {
          message: sanitizeForTerminal(
            `toolgate asks before running ${requests.length} call(s):\n${lines.join('\n')}`,
          ),
          requestedSchema: {
            type: 'object',
            properties: { approve: { type: 'boolean', title: 'Approve', description: 'Run these calls' } },
            required: ['approve'],
          },
        },
        { signal },
      );
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
