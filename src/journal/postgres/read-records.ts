import type { ReadRecord } from '../../tools/fs/read-cache.js';
import { type PendingRead, PendingReads } from '../common/pending-reads.js';
import type { ReadRecords } from '../roles/read-records.js';
import type { PgContext } from './pg-context.js';
import type { PgStatement } from './sync-pg.js';

/** The statement that applies one pending read-cache change (a forgotten file's row is deleted). */
export function readRecordStatement(r: PendingRead): PgStatement {
  return r.record
    ? {
        text: 'INSERT INTO read_cache (session_id, path, sha256, read_at) VALUES ($1, $2, $3, $4) ON CONFLICT (session_id, path) DO UPDATE SET sha256 = excluded.sha256, read_at = excluded.read_at',
        values: [r.session, r.path, r.record.sha256, r.record.readAt],
      }
    : {
        text: 'DELETE FROM read_cache WHERE session_id = $1 AND path = $2',
        values: [r.session, r.path],
      };
}

/**
 * What each session last read of each file, on PostgreSQL. A change is kept here until the next
 * write, which carries it first (`pending`, then `written`): as durable as the result of the call
 * that read, at no round trip of its own.
 */
export class PgReadRecords implements ReadRecords {
  readonly #query: PgContext['query'];
  readonly #pending = new PendingReads();

  constructor(query: PgContext['query']) {
    this.#query = query;
  }

  getReadRecord(session: string, file: string): ReadRecord | undefined {
    const pending = this.#pending.get(session, file);
    if (pending) return pending.record ?? undefined;
    const row = this.#query<{ sha256: string; read_at: number }>(
      'SELECT sha256, read_at FROM read_cache WHERE session_id = $1 AND path = $2',
      [session, file],
    )[0];
    return row ? { sha256: row.sha256, readAt: row.read_at } : undefined;
  }

  putReadRecord(session: string, file: string, record: ReadRecord): void {
    this.#pending.put(session, file, record);
  }

  deleteReadRecord(session: string, file: string): void {
    // No time kept: the row is deleted, not kept as a tombstone.
    this.#pending.forget(session, file);
  }

  /** Whether changes wait for a write. */
  get waiting(): boolean {
    return this.#pending.size > 0;
  }

  /** The changes waiting, for the next write to carry first. */
  pending(): PendingRead[] {
    return this.#pending.pending() ?? [];
  }

  /** The write carrying `reads` committed: each is done, unless it was changed again since. */
  written(reads: readonly PendingRead[]): void {
    this.#pending.written(reads);
  }
}
