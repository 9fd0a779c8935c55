import type { ResolvedPath } from '../sandbox/sandbox.js';
import type { CommandFacts } from './command-facts.js';
import type { ConfirmationRequest } from './confirmation.js';
import type { PolicyDecision } from './policy-decision.js';
import type { ToolCall } from './tool-call.js';
import type { AnyToolDefinition } from './tool-definition.js';
import type { ToolResult } from './tool-result.js';

/** What the planner decided for one call (seed 000 FR-APR-02). */
export type Disposition =
  /** `approvedBy: 'person'`: someone approved it (approveBatch); else a rule allowed it unasked. */
  | { kind: 'execute'; approvedBy?: 'person' }
  | { kind: 'needs_approval'; request: ConfirmationRequest }
  | { kind: 'resolved'; result: ToolResult };

/** A call after planning: the tool and typed args exist only when it may run. */
export interface PlannedCall {
  call: ToolCall;
  index: number;
  tool?: AnyToolDefinition;
  args?: unknown;
  disposition: Disposition;
  decision?: PolicyDecision;
  /** Approval summary: exact, controls made visible (showExact), a ≤ 200-char title; present once the args parsed. */
  summary?: string;
  /** For command tools: the parsed command line (grants are made from its sub-commands). */
  commandFacts?: CommandFacts;
  /** The call's locations, resolved inside the sandbox at planning (absent when one was refused). */
  paths?: readonly ResolvedPath[];
}
