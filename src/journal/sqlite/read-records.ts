import type { ReadRecord } from '../../tools/fs/read-cache.js';
import type { PendingRead } from '../common/pending-reads.js';
import type { ReadRecords } from '../roles/read-records.js';
import type { SqliteContext } from './sqlite-context.js';
import type { Staging } from './staging.js';
import type { Statements } from './statements.js';

/**
 * A forgotten file is a row with no hash (a tombstone) rather than no row: a record folded late
 * from another process's line then cannot bring back what was forgotten after it (the newest wins
 * either way, review 13, 3).
 */
const FORGOTTEN = '';

/** A read-cache change into the table, unless the row there is newer (whoever wrote it). */
export function applyRead(stmt: Statements, r: PendingRead, forgottenAt: number): void {
  if (r.record) stmt.putRead.run(r.session, r.path, r.record.sha256, r.record.readAt);
  else stmt.putRead.run(r.session, r.path, FORGOTTEN, r.at ?? forgottenAt);
}

/**
 * What each session last read of each file, on SQLite. A change waits for the next commit (or
 * rides in the next staged line) instead of paying a commit of its own; a reader sees the newest of
 * what waits, what is staged and what the table holds.
 */
export class SqliteReadRecords implements ReadRecords {
  readonly #ctx: SqliteContext;
  readonly #staging: Staging;

  constructor(ctx: SqliteContext, staging: Staging) {
    this.#ctx = ctx;
    this.#staging = staging;
  }

  getReadRecord(session: string, file: string): ReadRecord | undefined {
    const pending = this.#ctx.pendingReads.get(session, file);
    if (pending) return pending.record ?? undefined;
    // Another process's staged lines may hold a newer record than ours: all are folded first, the
    // newest winning (review M2); then ours, still staged, against the table: the newer one.
    if (this.#staging.othersStaged()) this.#ctx.foldForRead();
    const row = this.#ctx.stmt.getRead.get(session, file) as { sha256: string; read_at: number } | undefined;
    let newest = row ? { record: { sha256: row.sha256, readAt: row.read_at }, at: row.read_at } : undefined;
    const inFile = this.#staging.inFile;
    for (let i = inFile.length - 1; i >= 0; i--) {
      const entry = inFile[i];
      const staged = entry?.batch.reads?.findLast((r) => r.session === session && r.path === file);
      if (!staged || !entry) continue;
      const at = staged.record ? staged.record.readAt : (staged.at ?? entry.batch.now);
      if (!newest || at >= newest.at)
        newest = { record: staged.record ?? { sha256: FORGOTTEN, readAt: at }, at };
      break;
    }
    return newest && newest.record.sha256 !== FORGOTTEN ? newest.record : undefined;
  }

  putReadRecord(session: string, file: string, record: ReadRecord): void {
    this.#ctx.pendingReads.put(session, file, record);
  }

  deleteReadRecord(session: string, file: string): void {
    this.#ctx.pendingReads.forget(session, file, Date.now());
  }
}
