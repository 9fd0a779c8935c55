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
      // Something the machine needs is failing (disk, memory, the journal): what changes it stops;
      // reads, and network reads, go on asking where they would.
      return tier === 'read_only' ? 'allow' : tier === 'network' ? 'ask' : 'forbid';
    case 'LOCKDOWN':
      return tier === 'read_only' ? 'allow' : 'forbid';
  }
}
