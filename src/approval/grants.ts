import {
  type Grant,
  type GrantOffer,
  type GrantStore,
  MemoryGrantStore,
  type RememberChoice,
} from '../core/grant.js';
import type { PlannedCall } from '../core/planned-call.js';
import type { GrantStore as JournalGrants } from '../journal/roles/grant-store.js';
import type { PolicyEngine } from '../policy/policy-engine.js';
import { grantOffer, offerForChoice } from './grant-coverage.js';

/**
 * One session's "always allow" grants: read for planning, offered with each waiting call, and
 * stored when a person picks "always".
 */
export class Grants {
  constructor(
    private readonly store: GrantStore,
    private readonly session: string,
    /** Asked whether an offer would stop the question (see withOffers). */
    private readonly policy: Pick<PolicyEngine, 'decide'>,
  ) {}

  /** The session's grants and every project-wide one; none when the store cannot be read. */
  list(): Grant[] {
    try {
      return this.store.list(this.session);
    } catch {
      return []; // without its grants a call just asks again: the safe side
    }
  }

  /**
   * Stores "always allow" for an approved call: exactly the offer the person was shown with the
   * request (`always`), or the directory they picked in its place; nothing when neither holds.
   */
  remember(p: PlannedCall, choice: RememberChoice): void {
    if (p.disposition.kind !== 'needs_approval') return;
    const offer = p.disposition.request.always;
    if (!offer) return;
    const covers = offerForChoice(offer, choice, p.paths ?? []);
    if (!covers) return;
    const scope = typeof choice === 'object' ? choice.scope : choice;
    const base = {
      tool: p.call.name,
      scope,
      createdAt: Date.now(),
      ...(scope === 'session' ? { session: this.session } : {}),
    };
    try {
      for (const c of covers) this.store.add({ ...base, covers: c });
    } catch {
      // Not remembered: the person is asked again next time, nothing is allowed that was not approved.
    }
  }

  /**
   * Each waiting call's request says what "always" would cover (`always`, issue #30 §5), from what
   * planning judged, so every surface shows it and the grant stored is exactly it. Offered only
   * when the grant would stop the question: the policy, asked again with it, allows the call
   * (a rule that asks, a mode that asks, a tool that always asks, a deletion: no "always").
   */
  withOffers(planned: PlannedCall[]): PlannedCall[] {
    for (const p of planned) {
      if (p.disposition.kind !== 'needs_approval' || !p.tool) continue;
      const request = p.disposition.request;
      const deletes = request.locations.some((l) => l.access === 'delete');
      // The arguments as the policy judged them (a JSON string is read as planning read it).
      const raw = p.call.arguments;
      let args: Record<string, unknown>;
      try {
        args = typeof raw === 'string' ? (raw.trim() === '' ? {} : JSON.parse(raw)) : raw;
      } catch {
        continue; // cannot be: planning read it; no offer then
      }
      const facts = {
        tool: p.call.name,
        args,
        paths: p.paths ?? [],
        ...(deletes ? { deletes: true } : {}),
        ...(p.commandFacts ? { commandFacts: p.commandFacts } : {}),
      };
      let always: GrantOffer = grantOffer({ ...facts, summary: request.summary });
      if ('covers' in always) {
        const offered: Grant[] = always.covers.map((covers) => ({
          tool: p.call.name,
          covers,
          scope: 'session',
          session: this.session,
          createdAt: 0,
        }));
        const decision = this.policy.decide({ ...facts, tool: p.tool, recentCalls: 0, grants: offered });
        if (decision.action !== 'allow')
          always = { refused: `it asks whatever is granted (${decision.reason})` };
      }
      request.always = always;
    }
    return planned;
  }
}

/** Where grants live by default: the journal when there is one (every process sees them), else memory. */
export function defaultGrantStore(
  journal: Pick<JournalGrants, 'listGrants' | 'addGrant'> | undefined,
): GrantStore {
  return journal
    ? { list: (s) => journal.listGrants(s), add: (g) => journal.addGrant(g) }
    : new MemoryGrantStore();
}
