import type { ReadCache, ReadRecord } from '../tools/fs/read-cache.js';
import type { ReadRecords } from './journal.js';

/**
 * The read-before-write cache of one session, kept in the journal so it survives restarts. It has no
 * `recordContent`: each hash is computed at once, so the row is durable when the call's result is.
 */
export class JournalReadCache implements ReadCache {
  /**
   * What this process recorded, so reading a file again costs no query; a miss asks the journal.
   * Another process of the same session may have recorded (or forgotten) since: the guard then
   * compares the file with what this process itself last read. It refuses when the file changed
   * since, and allows only a file exactly as this process saw it — never one nobody here has read.
   */
  readonly #known = new Map<string, ReadRecord>();

  constructor(
    private readonly journal: ReadRecords,
    private readonly session: string,
  ) {}

  get(canonicalPath: string): ReadRecord | undefined {
    return this.#known.get(canonicalPath) ?? this.journal.getReadRecord(this.session, canonicalPath);
  }

  record(canonicalPath: string, sha256: string, at = Date.now()): void {
    // The same content read again changes nothing the stale guard checks: no row to rewrite (the
    // record keeps when that content was first read, and one another process of the session wrote
    // since is not overwritten with an older read).
    const before = this.get(canonicalPath);
    if (before?.sha256 === sha256) {
      this.#remember(canonicalPath, before);
      return;
    }
    this.#put(canonicalPath, { sha256, readAt: at });
  }

  /** After our own write: recorded without asking the journal first (a new file has no record). */
  recordWrite(canonicalPath: string, sha256: string): void {
    if (this.#known.get(canonicalPath)?.sha256 === sha256) return;
    this.#put(canonicalPath, { sha256, readAt: Date.now() });
  }

  #put(canonicalPath: string, record: ReadRecord): void {
    this.journal.putReadRecord(this.session, canonicalPath, record);
    this.#remember(canonicalPath, record);
  }

  forget(canonicalPath: string): void {
    this.#known.delete(canonicalPath);
    this.journal.deleteReadRecord(this.session, canonicalPath);
  }

  #remember(canonicalPath: string, record: ReadRecord): void {
    this.#known.delete(canonicalPath); // most recent last: the oldest goes first when full
    this.#known.set(canonicalPath, record);
    if (this.#known.size > KNOWN_MAX) this.#known.delete(this.#known.keys().next().value as string);
  }
}

/** Files remembered per session (a few hundred KB at most); older ones are asked for again. */
const KNOWN_MAX = 4096;
