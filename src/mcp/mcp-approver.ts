import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ApprovalDecision, Approver, ConfirmationRequest } from '../core/confirmation.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';

/** The config line that would allow a call without asking, for clients that cannot ask. */
export function allowHint(request: ConfirmationRequest): string {
  if (request.toolName === 'run_command') {
    return `add the command to [tools.run_command] allow in toolgate.toml (e.g. allow = ["${request.detail?.split(/\s|⏎/)[0] ?? 'git status'}"])`;
  }
  if (request.rule.startsWith('tool ') || request.risk === 'high') {
    return `add an allow rule with conditions to toolgate.toml: [[tools.policy.rules]] tool = "${request.toolName}", action = "allow", conditions = [...]`;
  }
  return `add "${request.toolName}" to [tools.approval] allowlist in toolgate.toml`;
}

/**
 * Approvals over MCP (issue #6): with elicitation, each batch's confirmations become one form the
 * person answers; without it, a denial that says which config line would allow the call. Never a
 * silent allow: a declined, cancelled or failed elicitation is a denial.
 */
export function mcpApprover(server: Server): Approver {
  return async (requests, signal): Promise<ApprovalDecision> => {
    if (!server.getClientCapabilities()?.elicitation) {
      return {
        kind: 'deny_all',
        reason: `this MCP client cannot ask for approval (no elicitation); to allow it: ${requests.map(allowHint).join('; ')}`,
      };
    }
    const lines = requests.map((r, i) => {
      const detail = r.detail && r.detail !== r.summary ? `\n   full: ${r.detail}` : '';
      return `${i + 1}. [${r.risk}] ${r.toolName}: ${r.summary}${detail}\n   why asked: ${r.reason}`;
    });
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
      return {
        kind: 'deny_all',
        reason:
          answer.action === 'accept'
            ? 'the user did not approve it'
            : `the user ${answer.action}ed the request`,
      };
    } catch (error) {
      return { kind: 'deny_all', reason: `the approval request failed (${(error as Error).message})` };
    }
  };
}
