import type { Grant } from '../../core/grant.js';

/**
 * "Always allow" grants, per session and project-wide (`toolgate grants`).
 */
export interface GrantStore {
  /** "Always allow" grants: this session's and every project-wide one, with their ids. */
  listGrants(session: string): Grant[];
  addGrant(grant: Grant): void;
  /** Every grant of every session, oldest first (`toolgate grants list`). */
  allGrants(): Grant[];
  /** Removes one grant (committed: the next plan of any process no longer sees it); false if none has that id. */
  revokeGrant(id: number): boolean;
  /** Removes every grant, or only the grants of one session; returns how many went. */
  revokeGrants(session?: string): number;
}
