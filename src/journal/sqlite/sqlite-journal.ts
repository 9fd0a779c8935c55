import type Database from 'better-sqlite3';
import { pendingFileSyncs } from '../../sandbox/pending-syncs.js';
import { RoleDelegation, type RoleParts } from '../common/role-delegation.js';
import type { Journal } from '../journal.js';
import { JournalError } from '../journal-error.js';
import { thisProcess } from '../process-identity.js';
import { StagingFiles } from '../staging-files.js';
import { WalIndexHeader } from '../wal-index-header.js';
import { SqliteApprovals } from './approvals.js';
import { SqliteBatchLog } from './batches.js';
import { SqliteConnection } from './connection.js';
import { SqliteConversation } from './conversation.js';
import { DataVersion } from './data-version.js';
import { DiskSync } from './disk-sync.js';
import { explainSqliteError } from './explain-sqlite-error.js';
import { SqliteGovernance } from './governance.js';
import { SqliteGrants } from './grants.js';
import { SqliteHistory } from './history.js';
import { SqliteLeases } from './leases.js';
import { openDatabase, prepareJournalFile } from './open-database.js';
import { SqliteReadRecords } from './read-records.js';
import { SqliteRecovery } from './recovery.js';
import { SqliteRetention } from './retention.js';
import { defaultSealKey, Seals } from './seals.js';
import { SqliteTodos } from './todos.js';

// explainSqliteError (explain-sqlite-error.ts): kept importable from here, where callers found it.
export { explainSqliteError };

/**
 * The SQLite journal: WAL with `synchronous = NORMAL` (a commit survives a process crash when it
 * returns), `sync()` for power-loss durability where it matters (group commit, see wal-sync.ts and
 * docs/DURABILITY.md), a busy timeout so several processes can share a file, and a versioned
 * schema. Each public write is one transaction.
 *
 * One object per store: the connection and the write path every part shares (`SqliteContext`,
 * connection.ts, with staged batches and their folding: staging.ts, fold.ts); each role is one part
 * in a file of its own (batches, history, recovery, leases, approvals, conversation, read-records,
 * todos, governance, grants, retention), which this class delegates to.
 */
export class SqliteJournal extends RoleDelegation implements Journal {
  readonly location: string;
  readonly file: string | undefined;
  readonly beginsRunning = true;
  readonly #conn: SqliteConnection;
  /** Undefined in memory: nothing to fsync. */
  readonly #disk: DiskSync | undefined;
  /** The WAL-index header, to tell without SQLite that nobody committed (data-version.ts). */
  readonly #walIndex: WalIndexHeader | undefined;
  readonly #version: DataVersion;
  readonly #batches: SqliteBatchLog;
  protected readonly parts: RoleParts;

  private constructor(
    location: string,
    db: Database.Database,
    uid: number | undefined,
    loadKey: () => Buffer,
  ) {
    super();
    this.location = location;
    const memory = location === ':memory:';
    this.file = memory ? undefined : location;
    const owner = thisProcess();
    const files = memory ? undefined : StagingFiles.open(location, owner, uid);
    const conn = new SqliteConnection(location, db, owner, new Seals(loadKey), files);
    this.#conn = conn;
    this.#walIndex = memory ? undefined : new WalIndexHeader(location);
    this.#version = new DataVersion(conn.stmt, this.#walIndex);
    const staging = conn.staging;
    this.#batches = new SqliteBatchLog(conn, staging);
    this.#disk = memory ? undefined : new DiskSync(conn, location, this.#walIndex, this.#batches);
    const history = new SqliteHistory(conn);
    this.parts = {
      batches: this.#batches,
      history,
      recovery: new SqliteRecovery(conn),
      leases: new SqliteLeases(conn, history),
      approvals: new SqliteApprovals(conn),
      conversation: new SqliteConversation(conn),
      reads: new SqliteReadRecords(conn, staging),
      todos: new SqliteTodos(conn),
      governance: new SqliteGovernance(conn, this.#version, staging),
      grants: new SqliteGrants(conn, this.#version),
      retention: new SqliteRetention(conn),
    };
  }

  /**
   * `uid`: the user this process acts as, for whose staging folder it may write (default: its own).
   * `sealKey`: the key that seals grants, answers and modes (default: this user's, seal-key.ts).
   */
  static open(
    file: string,
    options: { busyTimeoutMs?: number; uid?: number; sealKey?: Buffer } = {},
  ): SqliteJournal {
    prepareJournalFile(file);
    const db = openDatabase(file, options.busyTimeoutMs);
    try {
      const given = options.sealKey;
      const journal = new SqliteJournal(
        file,
        db,
        options.uid ?? process.getuid?.(),
        given ? () => given : defaultSealKey,
      );
      journal.#conn.foldForRead(); // batches a process staged before it died
      return journal;
    } catch (error) {
      db.close();
      if (error instanceof JournalError) throw error;
      throw explainSqliteError(error, file);
    }
  }

  /**
   * Everything committed so far is on disk (survives a power loss) when this resolves. Concurrent
   * callers (several open batches: MCP sessions over HTTP) share one fsync (disk-sync.ts).
   */
  sync(): Promise<void> {
    return this.#disk ? this.#disk.sync() : Promise.resolve();
  }

  atOneMoment<T>(fn: () => T): T {
    return this.#version.atOneMoment(fn);
  }

  /** Staged batches that cannot be read (a damaged row): kept, skipped by folding, named here. */
  unreadableStaged(): { seq: number; problem: string }[] {
    return this.#conn.staging.unreadableStaged();
  }

  /** Removes unreadable staged rows (after `unreadableStaged()` showed them); returns their bodies. */
  dropUnreadableStaged(): { seq: number; body: string }[] {
    return this.#conn.staging.dropUnreadableStaged();
  }

  // Every other role: RoleDelegation hands it to its part (this.parts).

  /** The durability settings in force on this connection (for `toolgate journal` and tests). */
  settings(): { journalMode: string; synchronous: number; busyTimeoutMs: number; schemaVersion: number } {
    const db = this.#conn.db;
    return {
      journalMode: db.pragma('journal_mode', { simple: true }) as string,
      synchronous: db.pragma('synchronous', { simple: true }) as number,
      busyTimeoutMs: db.pragma('busy_timeout', { simple: true }) as number,
      schemaVersion: db.pragma('user_version', { simple: true }) as number,
    };
  }

  close(): void {
    const conn = this.#conn;
    const files = conn.staging.files;
    try {
      // Nothing recorded is dropped: read records are written, staged batches folded.
      if (conn.pendingReads.size > 0 || conn.staging.staged > 0) conn.write(() => undefined);
      files?.removeOwn(); // all of it is in batches and calls now
    } catch {
      // A journal that cannot write any more: what it staged stays for the next opener to fold.
      files?.closeOwn();
    }
    try {
      pendingFileSyncs.flushSync(); // files still being flushed reach the disk before rows about them
      this.#disk?.syncNow(); // what was committed since the last sync() reaches the disk too
    } catch {
      // No WAL (nothing was ever written) or it is gone: SQLite's close checkpoints what there is.
    } finally {
      conn.markClosed();
      conn.staging.stopTimer();
      this.#disk?.close();
      conn.db.close();
      this.#walIndex?.release(); // after SQLite's own connection: no lock of it is dropped
    }
  }
}
