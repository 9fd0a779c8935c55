import type { Grant } from '../../core/grant.js';
import { newGrantRow } from '../common/new-grant-row.js';
import { type GrantRow, grantFromRow } from '../grant-rows.js';
import type { GrantStore } from '../roles/grant-store.js';
import type { PgContext } from './pg-context.js';

/** "Always allow" grants on PostgreSQL, per session and project-wide (`toolgate grants`). */
export class PgGrants implements GrantStore {
  readonly #ctx: PgContext;

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
  }

  listGrants(session: string): Grant[] {
    return this.#ctx
      .query<GrantRow>(
        "SELECT id, tool, prefix, covers, scope, session_id, created_at FROM grants WHERE scope = 'project' OR session_id = $1 ORDER BY id",
        [session],
      )
      .map(grantFromRow);
  }

  addGrant(grant: Grant): void {
    const row = newGrantRow(grant);
    this.#ctx.write([
      {
        text: 'INSERT INTO grants (session_id, tool, prefix, covers, scope, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
        values: [row.session_id, row.tool, row.prefix, row.covers, row.scope, row.created_at],
      },
    ]);
  }

  allGrants(): Grant[] {
    return this.#ctx
      .query<GrantRow>(
        'SELECT id, tool, prefix, covers, scope, session_id, created_at FROM grants ORDER BY id',
      )
      .map(grantFromRow);
  }

  revokeGrant(id: number): boolean {
    const [r] = this.#ctx.write([{ text: 'DELETE FROM grants WHERE id = $1', values: [id] }]).slice(-1);
    return (r?.rowCount ?? 0) > 0;
  }

  revokeGrants(session?: string): number {
    const [r] = this.#ctx
      .write([
        session === undefined
          ? { text: 'DELETE FROM grants', values: [] }
          : { text: "DELETE FROM grants WHERE scope = 'session' AND session_id = $1", values: [session] },
      ])
      .slice(-1);
    return r?.rowCount ?? 0;
  }
}
