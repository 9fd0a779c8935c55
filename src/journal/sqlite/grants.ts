import type { Grant } from '../../core/grant.js';
import { newGrantRow } from '../common/new-grant-row.js';
import { foreignGrantFromRow, type GrantRow, grantFromRow } from '../grant-rows.js';
import type { GrantStore } from '../roles/grant-store.js';
import { grantFields, seal, sealValid } from '../state-seal.js';
import type { DataVersion } from './data-version.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * "Always allow" grants on SQLite, per session and project-wide (`toolgate grants`). Each row is
 * sealed by this user's key: a planted or copied row allows nothing.
 */
export class SqliteGrants implements GrantStore {
  readonly #ctx: SqliteContext;
  readonly #version: DataVersion;
  #grants: { version: number; session: string; list: Grant[] } | undefined;

  constructor(ctx: SqliteContext, version: DataVersion) {
    this.#ctx = ctx;
    this.#version = version;
  }

  listGrants(session: string): Grant[] {
    // Asked for every batch: read again only when the file changed (data_version moves when another
    // connection commits; this one's own grants clear the cache in addGrant).
    const version = this.#version.current();
    const cached = this.#grants;
    if (cached && cached.version === version && cached.session === session) return [...cached.list];
    const list = this.#readGrants(session);
    this.#grants = { version, session, list };
    return [...list];
  }

  /** Only grants this user's toolgate made here (sealed): a planted or copied row allows nothing. */
  #readGrants(session: string): Grant[] {
    const key = this.#ctx.seals.keyToRead();
    return (this.#ctx.stmt.listGrants.all(session) as GrantRow[])
      .filter((r) => sealValid(key, 'grant', grantFields(r), r.seal))
      .map(grantFromRow);
  }

  addGrant(grant: Grant): void {
    this.#grants = undefined;
    const key = this.#ctx.seals.keyToWrite('a grant');
    const row = newGrantRow(grant);
    this.#ctx.write(() =>
      this.#ctx.stmt.addGrant.run(
        row.session_id,
        row.tool,
        row.prefix,
        row.covers,
        row.scope,
        row.created_at,
        seal(key, 'grant', grantFields(row)),
      ),
    );
  }

  /** Every grant row, those not made by this user here marked (they allow nothing; `grants list`). */
  allGrants(): Grant[] {
    const key = this.#ctx.seals.keyToRead();
    return (this.#ctx.stmt.allGrants.all() as GrantRow[]).map((r) =>
      sealValid(key, 'grant', grantFields(r), r.seal) ? grantFromRow(r) : foreignGrantFromRow(r),
    );
  }

  revokeGrant(id: number): boolean {
    this.#grants = undefined; // this connection's next plan reads them again
    return this.#ctx.write(() => this.#ctx.stmt.revokeGrant.run(id).changes) > 0;
  }

  revokeGrants(session?: string): number {
    this.#grants = undefined;
    return this.#ctx.write(() =>
      session === undefined
        ? this.#ctx.stmt.revokeAllGrants.run().changes
        : this.#ctx.stmt.revokeSessionGrants.run(session).changes,
    );
  }
}
