import type { GrantOffer, RememberChoice } from './grant.js';
import type { RiskLevel } from './tier.js';
import type { ToolLocation } from './tool-definition.js';

/**
 * What a person is asked (seed 000 FR-APR-03, seed 001 Property 37). Shown = judged = run (issue
 * #30): every text field is the call's exact text, never redacted, with everything a terminal or a
 * browser would act on or hide written as a visible escape (`showExact` in src/output/show-exact.ts;
 * `readShown` decodes it back to the exact bytes). Redaction belongs to logs, telemetry, exports and
 * text sent to the model, never here. The preview hash (src/core/preview-hash.ts) binds all of it.
 */
export interface ConfirmationRequest {
  callId: string;
  toolName: string;
  /** One line (newline shown as ⏎), at most 200 characters; when cut it says so, and `summaryFull` holds it whole. */
  summary: string;
  risk: RiskLevel;
  locations: ToolLocation[];
  /** Why policy asks, and the rule that said so. */
  reason: string;
  rule: string;
  /** A rule's custom message, if any. */
  message?: string;
  /** The full text to approve (the whole command, the whole diff of a file change), never cut. */
  detail?: string;
  /** A compound command line's sub-commands as the policy parsed and judged them. */
  commands?: string[];
  /** Only when `summary` was cut: the whole summary, one line. Every surface shows it. */
  summaryFull?: string;
  /** The call's place in its batch (0-based): with the batch id, the approval id `BATCH.<index + 1>`. */
  index?: number;
  /**
   * What "always" would cover (issue #30 §5): the exact files, origin, command prefixes or
   * arguments a grant would hold, or why there is none. Set by planning for every waiting call;
   * surfaces say it in describeGrant's words and offer "always" only with `covers`.
   */
  always?: GrantOffer;
}

export type ApprovalDecision =
  | { kind: 'approve_all'; remember?: RememberChoice }
  | {
      kind: 'approve_selected';
      ids: readonly string[];
      remember?: Readonly<Record<string, RememberChoice>>;
    }
  | { kind: 'deny_all'; reason?: string };

/**
 * Answers all confirmations of one batch at once, before anything runs (T-APR-01). Must settle;
 * a rejection or a timeout is taken as DenyAll.
 */
export type Approver = (
  requests: readonly ConfirmationRequest[],
  signal: AbortSignal,
  context?: ApprovalContext,
) => Promise<ApprovalDecision>;

/** Where the confirmations come from: the journaled batch they belong to, when there is one. */
export interface ApprovalContext {
  batchId?: string;
  session?: string;
}

export const approveAll: Approver = async () => ({ kind: 'approve_all' });
/** Denies every confirmation, saying why nobody could approve it. */
export function denyWith(reason: string): Approver {
  return async () => ({ kind: 'deny_all', reason });
}

export const denyAll: Approver = denyWith('no one was available to approve it');
