import type Database from 'better-sqlite3';
import { pendingFileSyncs } from '../../sandbox/pending-syncs.js';
import { PendingReads } from '../common/pending-reads.js';
import type { MessageRecord } from '../journal-types.js';
import type { StagingFiles } from '../staging-files.js';
import { explainSqliteError } from './explain-sqlite-error.js';
import { applyRead } from './read-records.js';
import type { Seals } from './seals.js';
import type { SqliteContext } from './sqlite-context.js';
import { Staging } from './staging.js';
import { prepareStatements, type Statements } from './statements.js';

/** Commits between checkpoints (SQLite's own default is every 1,000 pages; most commits write 1 to 4). */
const CHECKPOINT_EVERY = 300;

/**
 * The SQLite journal's one connection and the write path every part shares (the context,
 * sqlite-context.ts): each write one immediate transaction, with the read-cache changes waiting and,
 * first, the batches staged (staging.ts); checkpoints off the reply's path after enough commits.
 */
export class SqliteConnection implements SqliteContext {
  readonly location: string;
  readonly db: Database.Database;
  readonly stmt: Statements;
  readonly owner: string;
  readonly sessionOf = new Map<string, string | undefined>();
  readonly seals: Seals;
  readonly pendingReads = new PendingReads();
  /** One transaction wrapper for every write (better-sqlite3 builds one per `transaction()` call). */
  readonly transaction: Database.Transaction<(fn: () => unknown) => unknown>;
  /** Read-only batches staged, and folded into batches and calls (staging.ts). */
  readonly staging: Staging;
  #closed = false;
  #commits = 0;
  #checkpointScheduled = false;
  /** Within one write transaction: the next message seq per session (see message). */
  readonly #nextSeq = new Map<string, number>();

  constructor(
    location: string,
    db: Database.Database,
    owner: string,
    seals: Seals,
    files: StagingFiles | undefined,
  ) {
    this.location = location;
    this.db = db;
    this.owner = owner;
    this.seals = seals;
    this.stmt = prepareStatements(db);
    this.transaction = db.transaction((fn: () => unknown) => fn());
    this.staging = new Staging(this, files);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The journal is closing: nothing is staged or checkpointed from now on. */
  markClosed(): void {
    this.#closed = true;
  }

  write<T>(fn: () => T): T {
    return this.commit(fn, this.staging.staged > 0);
  }

  commit<T>(fn: () => T, fold: boolean): T {
    this.#nextSeq.clear(); // what another process appended since is read again inside the lock
    const reads = this.pendingReads.pending();
    try {
      const out = this.transaction.immediate(() => {
        if (fold) this.staging.foldStaged();
        for (const r of reads ?? []) applyRead(this.stmt, r, Date.now());
        return fn();
      }) as T;
      if (fold) this.staging.folded();
      if (++this.#commits >= CHECKPOINT_EVERY) this.#checkpointSoon();
      this.pendingReads.written(reads);
      return out;
    } catch (error) {
      throw explainSqliteError(error, this.location);
    }
  }

  foldForRead(strict = false): void {
    this.staging.foldForRead(strict);
  }

  message(
    session: string,
    role: MessageRecord['role'],
    content: unknown,
    batchId: string | null,
    callId: string | null,
    json = JSON.stringify(content),
  ): void {
    // Looked up once per session and transaction: the write lock is held, nobody else appends.
    const seq = this.#nextSeq.get(session) ?? (this.stmt.nextSeq.get(session) as { seq: number }).seq;
    this.#nextSeq.set(session, seq + 1);
    this.stmt.insertMessage.run(session, seq, role, batchId, callId, json, Date.now());
  }

  forgetSeqs(): void {
    this.#nextSeq.clear();
  }

  /**
   * Copies the WAL into the database on the event loop's next turn, after the replies went out: a
   * checkpoint fsyncs the WAL and the database, which SQLite's automatic one would do inside the
   * commit that crossed its threshold (a reply then waited for two fsyncs). PASSIVE: it never waits
   * for readers or writers of other processes, who checkpoint too.
   */
  #checkpointSoon(): void {
    if (this.#checkpointScheduled) return;
    this.#checkpointScheduled = true;
    const checkpoint = () => {
      this.#checkpointScheduled = false;
      if (this.#closed) return;
      this.#commits = 0;
      try {
        this.db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // Busy or failing: the WAL only grows until a later one (or close) succeeds.
      }
    };
    // A checkpoint fsyncs the WAL: not while a written file's flush runs (see DiskSync.sync).
    setImmediate(() => {
      if (pendingFileSyncs.idle) checkpoint();
      else void pendingFileSyncs.drained().then(checkpoint);
    }).unref();
  }
}
