import type { GovernanceMode } from '../../core/tier.js';
import { REFUSALS_KEPT_MS } from '../common/refusals-kept.js';
import { JournalError } from '../journal-error.js';
import { type ModeRow, modeRecord } from '../journal-records.js';
import type { ModeRecord } from '../journal-types.js';
import type { GovernanceLog } from '../roles/governance-log.js';
import { modeFields, seal, sealValid } from '../state-seal.js';
import type { DataVersion } from './data-version.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * Governance on SQLite: the mode and its history (`governance_modes`, each change sealed: a planted
 * one changes nothing), refused calls for the automatic governor, and call counts for per-hour rate
 * limits, shared by every process using the file.
 */
export class SqliteGovernance implements GovernanceLog {
  readonly #ctx: SqliteContext;
  readonly #version: DataVersion;
  /** How many staged rows the last fold could not read (Staging.unreadable). */
  readonly #staging: { readonly unreadable: number };
  #mode: { version: number; record: ModeRecord | undefined } | undefined;
  #rateIndexReady = false;

  constructor(ctx: SqliteContext, version: DataVersion, staging: { readonly unreadable: number }) {
    this.#ctx = ctx;
    this.#version = version;
    this.#staging = staging;
  }

  noteRefusals(times: readonly number[]): void {
    if (times.length === 0) return;
    const stmt = this.#ctx.stmt;
    this.#ctx.write(() => {
      for (const at of times) stmt.noteRefusal.run(at);
      stmt.forgetRefusals.run(Date.now() - REFUSALS_KEPT_MS);
    });
  }

  refusalsSince(since: number): number {
    return this.#ctx.stmt.refusalsSince.get(since) as number;
  }

  governanceMode(): ModeRecord | undefined {
    // Asked before every batch: read again only when the file changed (as for grants).
    const version = this.#version.current();
    if (this.#mode && this.#mode.version === version) return this.#mode.record;
    const row = this.#sealedModes(1)[0];
    const record = row ? modeRecord(row) : undefined;
    this.#mode = { version, record };
    return record;
  }

  recordMode(mode: GovernanceMode, reason: string, actor: string): ModeRecord {
    const key = this.#ctx.seals.keyToWrite('a governance mode');
    const at = Date.now();
    const mac = seal(key, 'mode', modeFields({ mode, reason, actor, created_at: at }));
    const row = this.#ctx.write(() => this.#ctx.stmt.putMode.get(mode, reason, actor, at, mac) as ModeRow);
    this.#mode = undefined;
    return modeRecord(row);
  }

  /** Mode changes this user's toolgate recorded here, newest first: a planted one changes nothing. */
  modeHistory(limit: number): ModeRecord[] {
    return this.#sealedModes(limit).map(modeRecord);
  }

  #sealedModes(limit: number): ModeRow[] {
    const key = this.#ctx.seals.keyToRead();
    const out: ModeRow[] = [];
    if (!key || limit <= 0) return out;
    for (const r of this.#ctx.stmt.modesNewestFirst.iterate() as IterableIterator<
      ModeRow & { seal: string | null }
    >) {
      if (!sealValid(key, 'mode', modeFields(r), r.seal)) continue;
      out.push(r);
      if (out.length >= limit) break;
    }
    return out;
  }

  countCallsSince(tool: string, since: number): number {
    // A count without staged calls would let a limited tool run too often: a fold that fails here
    // fails the count (the planner then refuses the call), never reads around them.
    this.#ctx.foldForRead(true);
    // Calls the journal holds but cannot read cannot be counted: a limit is then not known to hold.
    const unreadable = this.#staging.unreadable;
    if (unreadable > 0)
      throw new JournalError(
        `the journal ${this.#ctx.location} holds ${unreadable} staged batch(es) it cannot read, so calls cannot be counted; see them with \`toolgate journal list\`, then remove them with \`toolgate journal repair\``,
      );
    this.#ensureRateIndex();
    return (this.#ctx.stmt.countSince.get(tool, since) as { n: number }).n;
  }

  /** Made on first use (see schema.ts); where it cannot be (a busy or read-only file) counting scans. */
  #ensureRateIndex(): void {
    if (this.#rateIndexReady) return;
    try {
      this.#ctx.db.exec('CREATE INDEX IF NOT EXISTS calls_name_started ON calls(name, started_at)');
      this.#rateIndexReady = true;
    } catch {
      // Counted without the index this time; tried again on the next count.
    }
  }
}
