import type { GovernanceMode, Tier } from '../core/tier.js';

/**
 * What each governance mode (seed 002) does to a tool by tier when the config says nothing about
 * that mode: the further from NORMAL, the more asks and denials.
 */
export function governanceDefault(mode: GovernanceMode, tier: Tier): 'allow' | 'ask' | 'forbid' {
  switch (mode) {
    case 'NORMAL':
      return 'allow';
    case 'ALERT':
    case 'RECOVERY':
      return tier === 'read_only' ? 'allow' : 'ask';
    case 'DEGRADED':
      return tier === 'privileged' ? 'forbid' : tier === 'read_only' ? 'allow' : 'ask';
    case 'LOCKDOWN':
      return tier === 'read_only' ? 'allow' : 'forbid';
  }
}
