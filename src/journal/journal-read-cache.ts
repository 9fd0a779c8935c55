import type { ReadCache, ReadRecord } from '../tools/fs/read-cache.js';
import type { Journal } from './journal.js';

/**
 * The read-before-write cache of one session, kept in the journal so it survives restarts. It has no
 * `recordContent`: each hash is computed at once, so the row is durable when the call's result is.
 */
export class JournalReadCache implements ReadCache {
  constructor(
    private readonly journal: Journal,
    private readonly session: string,
  ) {}

  get(canonicalPath: string): ReadRecord | undefined {
    return this.journal.getReadRecord(this.session, canonicalPath);
  }

  record(canonicalPath: string, sha256: string, at = Date.now()): void {
    // The same content read again changes nothing the stale guard checks: no row to rewrite (the
    // record keeps when that content was first read).
    if (this.journal.getReadRecord(this.session, canonicalPath)?.sha256 === sha256) return;
    this.journal.putReadRecord(this.session, canonicalPath, { sha256, readAt: at });
  }

  forget(canonicalPath: string): void {
    this.journal.deleteReadRecord(this.session, canonicalPath);
  }
}
