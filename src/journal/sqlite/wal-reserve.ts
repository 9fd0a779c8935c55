import type Database from 'better-sqlite3';
import type { WalIndexHeader } from '../wal-index-header.js';
import type { WalSync } from '../wal-sync.js';

/** WAL space kept written ahead of the log (see WalReserve): at least this much, topped up to AHEAD. */
const WAL_HEADROOM = 1 << 20;
const WAL_AHEAD = 4 << 20;
/** Never written ahead past this size (a log this long is checkpointed soon). */
const WAL_MAX = 64 << 20;

/**
 * Room written ahead in the WAL before an fsync, so that commits overwrite it in place: the
 * fdatasync of a file that grew must commit its new size to the file system's journal, one that
 * was written in place need not (~50-90 µs less per side effect here; BENCHMARKS.md, session 13).
 * Under SQLite's write lock (an immediate transaction that writes nothing), past the log's end
 * (wal-sync.ts). Once the log restarts after a checkpoint, it reuses what is there. Anything that
 * fails leaves the WAL to grow as it writes.
 */
export class WalReserve {
  readonly #db: Database.Database;
  readonly #transaction: Database.Transaction<(fn: () => unknown) => unknown>;
  readonly #wal: WalSync;
  readonly #walIndex: WalIndexHeader;
  /**
   * The WAL file's size as last seen. It only grows while a connection is open (unless someone
   * truncates it by hand: then the room is not topped up, and the WAL grows as it writes).
   */
  #walSize = 0;

  constructor(
    db: Database.Database,
    transaction: Database.Transaction<(fn: () => unknown) => unknown>,
    wal: WalSync,
    walIndex: WalIndexHeader,
  ) {
    this.#db = db;
    this.#transaction = transaction;
    this.#wal = wal;
    this.#walIndex = walIndex;
  }

  /** Tops the room up, where it may be short (see the class). */
  reserve(): void {
    const wal = this.#wal;
    const walIndex = this.#walIndex;
    try {
      const used = walIndex.bytesUsed();
      // The size as last seen first: an fstat of the WAL just before its fdatasync made that
      // fdatasync ~45 µs slower here (measured), so it is asked only when the room may be short.
      if (used === undefined || used + WAL_HEADROOM <= this.#walSize) return;
      this.#walSize = wal.size();
      if (used + WAL_HEADROOM <= this.#walSize) return;
    } catch {
      return; // no WAL to look at: nothing to do
    }
    // Another process holding the write lock is not waited for: the room can be made next time.
    const waits = this.#db.pragma('busy_timeout', { simple: true }) as number;
    this.#db.pragma('busy_timeout = 0');
    try {
      this.#transaction.immediate(() => {
        const now = walIndex.bytesUsed(); // as of the write lock: no commit can move it now
        if (now === undefined || wal.size() >= now + WAL_HEADROOM) return;
        if (now + WAL_AHEAD <= WAL_MAX) wal.extendTo(now + WAL_AHEAD);
        this.#walSize = wal.size();
        // Not made (a log past WAL_MAX, a disk nearly full): not tried again by this journal, whose
        // every fsync would otherwise pay for a write lock.
        if (this.#walSize < now + WAL_HEADROOM) this.#walSize = Number.POSITIVE_INFINITY;
      });
    } catch (error) {
      // Busy: next time. Full or failing (the write-ahead was cut back): not again.
      if (!/^SQLITE_BUSY/.test((error as { code?: string }).code ?? ''))
        this.#walSize = Number.POSITIVE_INFINITY;
    } finally {
      this.#db.pragma(`busy_timeout = ${waits}`);
    }
  }
}
