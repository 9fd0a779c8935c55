/** Safety tiers (seed 003) and the risk levels they map to (seed 000 RiskLevel). */
export type Tier = 'read_only' | 'side_effecting' | 'privileged';
export type RiskLevel = 'low' | 'medium' | 'high';

export const TIERS: readonly Tier[] = ['read_only', 'side_effecting', 'privileged'];

export function riskOf(tier: Tier): RiskLevel {
  switch (tier) {
    case 'read_only':
      return 'low';
    case 'side_effecting':
      return 'medium';
    case 'privileged':
      return 'high';
  }
}

/** Governance modes (seed 002). */
export const GOVERNANCE_MODES = ['NORMAL', 'ALERT', 'DEGRADED', 'LOCKDOWN', 'RECOVERY'] as const;
export type GovernanceMode = (typeof GOVERNANCE_MODES)[number];
