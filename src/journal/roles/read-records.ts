import type { ReadRecord } from '../../tools/fs/read-cache.js';

/**
 * What each session last read of each file (the stale-write guard), kept with the journal.
 */
export interface ReadRecords {
  getReadRecord(session: string, path: string): ReadRecord | undefined;
  /** Kept with the next commit (the call's result): as durable as the result of the call that read. */
  putReadRecord(session: string, path: string, record: ReadRecord): void;
  deleteReadRecord(session: string, path: string): void;
}
