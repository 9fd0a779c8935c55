import type { GovernanceMode, RiskLevel } from './tier.js';
import type { ToolErrorType } from './tool-error.js';

export type PolicyAction = 'allow' | 'ask' | 'deny';

/** Every decision says which rule made it and in which config file (`toolgate policy explain`). */
export interface PolicyDecision {
  action: PolicyAction;
  /** Why, in words a person and a model understand. */
  reason: string;
  /** The config key or built-in rule that decided, e.g. `tools.policy.rules[2]`. */
  rule: string;
  /** The config file holding that rule, or `(built-in defaults)`. */
  file: string;
  /** For a denial: the ToolResult error type to report. */
  errorType?: Extract<ToolErrorType, 'Denied' | 'LimitExceeded' | 'SandboxViolation'>;
  risk: RiskLevel;
  /** A rule's custom confirmation message. */
  message?: string;
  /**
   * For a denial because of the governance mode in force: that mode (the way out is leaving it), and
   * whether the config sets it (then editing the config is a way out too).
   */
  mode?: { name: GovernanceMode; inConfig: boolean };
}
