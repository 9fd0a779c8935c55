import type { Grant, GrantCoverage } from '../core/grant.js';

/** A grant as both stores keep it (the `grants` table; `covers` since schema 14 / PostgreSQL 8). */
export type GrantRow = {
  id: number | string;
  tool: string;
  prefix: string | null;
  covers: string | null;
  scope: Grant['scope'];
  session_id: string | null;
  created_at: number | string;
  /** SQLite since schema 15: the row's HMAC by this user's seal key (state-seal.ts). */
  seal?: string | null;
};

/**
 * A stored grant whose row does not prove it was made by this user on this machine (no seal, or
 * one that does not verify: planted, copied, or from before schema 15). It allows nothing (its
 * `covers` is the no-coverage kind); `notMadeHere` is what the row claims, for `grants list`.
 */
export type ForeignGrant = Grant & { notMadeHere: GrantCoverage };

export function isForeignGrant(g: Grant): g is ForeignGrant {
  return 'notMadeHere' in g;
}

/** A row that did not prove it was made here, as a grant that allows nothing (see ForeignGrant). */
export function foreignGrantFromRow(r: GrantRow): ForeignGrant {
  const claimed = grantFromRow(r);
  return { ...claimed, covers: LEGACY, notMadeHere: claimed.covers };
}

/** The columns a grant is stored in: commands keep `prefix`, every other coverage `covers`. */
export function grantColumns(grant: Grant): { prefix: string | null; covers: string | null } {
  return grant.covers.kind === 'command'
    ? { prefix: JSON.stringify(grant.covers.prefix), covers: null }
    : { prefix: null, covers: JSON.stringify(grant.covers) };
}

/**
 * A stored row as a grant. A row with neither column was written before issue #30, when a grant
 * covered every call of its tool; it, and any row that does not read back as a known coverage,
 * covers nothing (fail closed) and shows in `toolgate grants list` to be revoked.
 */
export function grantFromRow(r: GrantRow): Grant {
  return {
    id: Number(r.id),
    tool: r.tool,
    covers: coverageOf(r),
    scope: r.scope,
    ...(r.session_id ? { session: r.session_id } : {}),
    createdAt: Number(r.created_at),
  };
}

const LEGACY: GrantCoverage = { kind: 'tool_wide_legacy' };

function coverageOf(r: GrantRow): GrantCoverage {
  try {
    if (r.covers !== null) return checked(JSON.parse(r.covers));
    if (r.prefix !== null) {
      const prefix: unknown = JSON.parse(r.prefix);
      if (Array.isArray(prefix) && prefix.length > 0 && prefix.every((w) => typeof w === 'string'))
        return { kind: 'command', prefix };
    }
  } catch {
    // unreadable: covers nothing
  }
  return LEGACY;
}

const strings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string');

/** Only a coverage of a known shape counts; anything else covers nothing. */
function checked(c: unknown): GrantCoverage {
  if (typeof c !== 'object' || c === null) return LEGACY;
  const o = c as Record<string, unknown>;
  switch (o.kind) {
    case 'paths':
      return strings(o.paths) && strings(o.shown)
        ? { kind: 'paths', paths: o.paths, shown: o.shown }
        : LEGACY;
    case 'directory':
      return typeof o.directory === 'string' && o.directory !== '' && typeof o.shown === 'string'
        ? { kind: 'directory', directory: o.directory, shown: o.shown }
        : LEGACY;
    case 'origin':
      return typeof o.origin === 'string' && o.origin !== '' ? { kind: 'origin', origin: o.origin } : LEGACY;
    case 'arguments':
      return typeof o.sha256 === 'string' && /^[0-9a-f]{64}$/.test(o.sha256)
        ? { kind: 'arguments', sha256: o.sha256, shown: typeof o.shown === 'string' ? o.shown : '' }
        : LEGACY;
    case 'command':
      return strings(o.prefix) ? { kind: 'command', prefix: o.prefix } : LEGACY;
    default:
      return LEGACY;
  }
}
