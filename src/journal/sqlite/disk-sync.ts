import { pendingFileSyncs } from '../../sandbox/pending-syncs.js';
import { JournalError } from '../journal-error.js';
import type { WalIndexHeader } from '../wal-index-header.js';
import { WalSync } from '../wal-sync.js';
import type { SqliteConnection } from './connection.js';
import { WalReserve } from './wal-reserve.js';

/**
 * Power-loss durability for a file journal (docs/DURABILITY.md): `sync()` makes everything
 * committed so far survive a power loss, by one fsync of the WAL shared by everyone waiting (group
 * commit, wal-sync.ts), with room written ahead in the log (wal-reserve.ts).
 */
export class DiskSync {
  readonly #conn: SqliteConnection;
  readonly #wal: WalSync;
  readonly #reserve: WalReserve | undefined;
  /** Whether other sessions or batches share this journal (SqliteBatchLog.concurrent). */
  readonly #sessions: { readonly concurrent: boolean };
  /** fsyncs asked for so far (see sync). */
  #synced = 0;

  constructor(
    conn: SqliteConnection,
    file: string,
    walIndex: WalIndexHeader | undefined,
    sessions: { readonly concurrent: boolean },
  ) {
    this.#conn = conn;
    this.#wal = new WalSync(file);
    this.#reserve = walIndex && new WalReserve(conn.db, conn.transaction, this.#wal, walIndex);
    this.#sessions = sessions;
  }

  /**
   * Everything committed so far is on disk (survives a power loss) when this resolves. Concurrent
   * callers (several open batches: MCP sessions over HTTP) share one fsync, and the event loop is
   * not blocked meanwhile.
   */
  async sync(): Promise<void> {
    const conn = this.#conn;
    // What this process staged is folded into the WAL first, so the fsync covers it (review L3).
    if (conn.staging.staged > 0) conn.write(() => undefined);
    // Files written by this process are on disk before the rows that say they were (any session).
    if (!pendingFileSyncs.idle) await pendingFileSyncs.drained();
    // From the second fsync on: a process that syncs once (`toolgate exec` of one write) would
    // only pay for the zeros.
    if (this.#synced++ > 0) this.#reserve?.reserve();
    try {
      // Alone (one session, one open batch, no flush under way): nobody to share an fsync with or
      // to hold up, so it runs here rather than pay the thread pool's round trip.
      if (!this.#sessions.concurrent && conn.sessionOf.size <= 1 && !this.#wal.busy) this.#wal.syncNow();
      else await this.#wal.sync();
    } catch (error) {
      throw new JournalError(
        `the journal ${conn.location} could not be flushed to disk (${(error as Error).message}); check the disk, then retry`,
      );
    }
  }

  /** An fsync of the WAL here and now (at close). */
  syncNow(): void {
    this.#wal.syncNow();
  }

  close(): void {
    this.#wal.close();
  }
}
