import type { Grant } from '../../core/grant.js';
import { grantColumns } from '../grant-rows.js';

/** A grant about to be stored, as its row's columns (a project-wide grant has no session). */
export function newGrantRow(grant: Grant): {
  session_id: string | null;
  tool: string;
  prefix: string | null;
  covers: string | null;
  scope: Grant['scope'];
  created_at: number;
} {
  const { prefix, covers } = grantColumns(grant);
  return {
    session_id: grant.scope === 'session' ? (grant.session ?? null) : null,
    tool: grant.tool,
    prefix,
    covers,
    scope: grant.scope,
    created_at: grant.createdAt,
  };
}
