import type { GovernanceMode } from '../../core/tier.js';
import { REFUSALS_KEPT_MS } from '../common/refusals-kept.js';
import { type ModeRow, modeRecord } from '../journal-records.js';
import type { ModeRecord } from '../journal-types.js';
import type { GovernanceLog } from '../roles/governance-log.js';
import type { PgContext } from './pg-context.js';

/**
 * Governance on PostgreSQL: the mode and its history (`governance_modes`), refused calls for the
 * automatic governor, and call counts for per-hour rate limits, shared by every process.
 */
export class PgGovernance implements GovernanceLog {
  readonly #ctx: PgContext;

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
  }

  noteRefusals(times: readonly number[]): void {
    if (times.length === 0) return;
    this.#ctx.write([
      { text: 'INSERT INTO refusals (at) SELECT unnest($1::bigint[])', values: [[...times]] },
      { text: 'DELETE FROM refusals WHERE at < $1', values: [Date.now() - REFUSALS_KEPT_MS] },
    ]);
  }

  refusalsSince(since: number): number {
    return (
      this.#ctx.query<{ n: number }>('SELECT count(*) AS n FROM refusals WHERE at >= $1', [since])[0]?.n ?? 0
    );
  }

  governanceMode(): ModeRecord | undefined {
    const row = this.#ctx.query<ModeRow>('SELECT * FROM governance_modes ORDER BY seq DESC LIMIT 1')[0];
    return row ? modeRecord(row) : undefined;
  }

  recordMode(mode: GovernanceMode, reason: string, actor: string): ModeRecord {
    const [r] = this.#ctx.write([
      {
        text: 'INSERT INTO governance_modes (mode, reason, actor, created_at) VALUES ($1, $2, $3, $4) RETURNING *',
        values: [mode, reason, actor, Date.now()],
      },
    ]);
    return modeRecord(r?.rows[0] as ModeRow);
  }

  modeHistory(limit: number): ModeRecord[] {
    return this.#ctx
      .query<ModeRow>('SELECT * FROM governance_modes ORDER BY seq DESC LIMIT $1', [limit])
      .map(modeRecord);
  }

  countCallsSince(tool: string, since: number): number {
    return (
      this.#ctx.query<{ n: number }>('SELECT count(*) AS n FROM calls WHERE name = $1 AND started_at >= $2', [
        tool,
        since,
      ])[0]?.n ?? 0
    );
  }
}
