import type { PlannedCall } from '../core/planned-call.js';
import type { PlanEntry } from '../journal/journal-types.js';

/** Each call's decision, and the request it is asked with, as the journal records a plan. */
export function planEntries(planned: readonly PlannedCall[]): PlanEntry[] {
  return planned.map((p) => ({
    index: p.index,
    ...(p.decision ? { decision: p.decision } : {}),
    ...(p.disposition.kind === 'needs_approval' ? { approval: p.disposition.request } : {}),
  }));
}
