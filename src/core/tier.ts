/** Safety tiers (seed 003) and the risk levels they map to (seed 000 RiskLevel). */
/**
 * `network` (issue #15): reads from outside the machine (web_fetch). Nothing here changes, so like a
 * read-only call it may run again after a crash, but what it reaches is the world: it asks by default.
 */
export type Tier = 'read_only' | 'network' | 'side_effecting' | 'privileged';
export type RiskLevel = 'low' | 'medium' | 'high';

export const TIERS: readonly Tier[] = ['read_only', 'network', 'side_effecting', 'privileged'];

/** Changes nothing on this machine: running it again (after a crash, or beside others) is harmless. */
export function isRepeatable(tier: Tier): boolean {
  return tier === 'read_only' || tier === 'network';
}

export function riskOf(tier: Tier): RiskLevel {
  switch (tier) {
    case 'read_only':
      return 'low';
    case 'network':
    case 'side_effecting':
      return 'medium';
    case 'privileged':
      return 'high';
  }
}

/** Governance modes (seed 002). */
export const GOVERNANCE_MODES = ['NORMAL', 'ALERT', 'DEGRADED', 'LOCKDOWN', 'RECOVERY'] as const;
export type GovernanceMode = (typeof GOVERNANCE_MODES)[number];
