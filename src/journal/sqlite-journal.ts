import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Grant } from '../core/grant.js';
import type { GovernanceMode } from '../core/tier.js';
import type { ToolCall } from '../core/tool-call.js';
import type { ToolResult } from '../core/tool-result.js';
import { pendingFileSyncs } from '../sandbox/pending-syncs.js';
import type { ReadRecord } from '../tools/fs/read-cache.js';
import type { Todo } from '../tools/todos/todo-store.js';
import { assistantMessage } from './common/assistant-message.js';
import { batchSummary, type SummaryRow } from './common/batch-summary.js';
import { type PendingRead, PendingReads } from './common/pending-reads.js';
import { settleCalls } from './common/settle-calls.js';
import {
  type ApprovalAnswer,
  type BatchRecord,
  type BatchSummary,
  type BeginBatchOptions,
  type CallRecord,
  type ExportedCall,
  type FinishedCall,
  type Journal,
  JournalError,
  type Lease,
  type MessageRecord,
  type ModeRecord,
  type PendingApproval,
  type PlanEntry,
} from './journal.js';
import {
  type BatchRow,
  batchRecord,
  type CallRow,
  callRecord,
  decisionJson,
  discardSettlement,
  leaseLost,
  notStartable,
  resumeSettlement,
  type Settlement,
  settleable,
  takenOver,
} from './journal-records.js';
import { thisProcess, workerGone } from './process-identity.js';
import { SqliteApprovals } from './sqlite/approvals.js';
import { SqliteConversation } from './sqlite/conversation.js';
import { DataVersion } from './sqlite/data-version.js';
import { explainSqliteError } from './sqlite/explain-sqlite-error.js';
import { SqliteGovernance } from './sqlite/governance.js';
import { SqliteGrants } from './sqlite/grants.js';
import { openDatabase, prepareJournalFile } from './sqlite/open-database.js';
import { SqliteRetention } from './sqlite/retention.js';
import { defaultSealKey, Seals } from './sqlite/seals.js';
import type { SqliteContext } from './sqlite/sqlite-context.js';
import { prepareStatements, type Statements } from './sqlite/statements.js';
import { SqliteTodos } from './sqlite/todos.js';
import { StagingFiles, writerGone } from './staging-files.js';
import { type BatchSealRow, batchFields, sealValid } from './state-seal.js';
import { WalIndexHeader } from './wal-index-header.js';
import { WalSync } from './wal-sync.js';

/**
 * Staged batches are folded when this many wait, or this many bytes of them, or this long after the
 * first (see #foldSoon). A fold costs its event loop about 15 µs a batch: a few ms at most, and a
 * staged batch is as durable as a folded one, so nothing is gained by folding sooner.
 */
const FOLD_AT = 256;
const FOLD_AT_BYTES = 4 << 20;
const FOLD_AFTER_MS = 1000;
/** Commits between checkpoints (SQLite's own default is every 1,000 pages; most commits write 1 to 4). */
const CHECKPOINT_EVERY = 300;

/** A read-only batch as staged (recordFinishedBatch): everything #insertBatch needs to write it. */
interface StagedBatch {
  id: string;
  session: string;
  calls: readonly ToolCall[];
  finished: readonly FinishedCall[];
  options: BeginBatchOptions;
  now: number;
  owner: string;
  /** Read-cache changes that ride with the batch (they were due in its commit: see #pendingReads). */
  reads?: PendingRead[];
}

/**
 * A forgotten file is a row with no hash (a tombstone) rather than no row: a record folded late
 * from another process's line then cannot bring back what was forgotten after it (the newest wins
 * either way, review 13, 3).
 */
const FORGOTTEN = '';

/** When a staged line's batch finished (0 for a line that cannot be read: it is kept as damaged). */
function stagedAt(text: string): number {
  try {
    const now = (JSON.parse(text) as { now?: unknown }).now;
    return typeof now === 'number' ? now : 0;
  } catch {
    return 0;
  }
}
/**
 * Lines of several files, each list in the order written, merged by the time each batch was
 * staged; a list's own order is never changed, whatever its times say.
 */
function mergeByTime(lists: readonly { text: string; now: number }[][]): string[] {
  const heads = lists.map(() => 0);
  const out: string[] = [];
  for (;;) {
    let pick = -1;
    for (const [i, list] of lists.entries()) {
      const head = list[heads[i] as number];
      const best = pick < 0 ? undefined : lists[pick]?.[heads[pick] as number];
      if (head && (!best || head.now < best.now)) pick = i;
    }
    if (pick < 0) return out;
    out.push((lists[pick] as { text: string }[])[heads[pick] as number]?.text as string);
    heads[pick] = (heads[pick] as number) + 1;
  }
}

/** WAL space kept written ahead of the log (see #reserveWal): at least this much, topped up to AHEAD. */
const WAL_HEADROOM = 1 << 20;
const WAL_AHEAD = 4 << 20;
/** Never written ahead past this size (a log this long is checkpointed soon). */
const WAL_MAX = 64 << 20;

/** How far a staging file is folded, and how big it was when last looked at. */
type StagedFileMark = { name: string; folded: number; seen: number };

// explainSqliteError (sqlite/explain-sqlite-error.ts): kept importable from here, where callers found it.
export { explainSqliteError };

/**
 * The SQLite journal: WAL with `synchronous = NORMAL` (a commit survives a process crash when it
 * returns), `sync()` for power-loss durability where it matters (group commit, see wal-sync.ts and
 * docs/DURABILITY.md), a busy timeout so several processes can share a file, and a versioned
 * schema. Each public write is one transaction.
 */
export class SqliteJournal implements Journal {
  readonly location: string;
  readonly file: string | undefined;
  readonly beginsRunning = true;
  readonly #db: Database.Database;
  readonly #stmt: Statements;
  readonly #owner = thisProcess();
  /** One transaction wrapper for every write (better-sqlite3 builds one per `transaction()` call). */
  readonly #transaction: Database.Transaction<(fn: () => unknown) => unknown>;
  readonly #wal: WalSync | undefined;
  /** Open batches' sessions (undefined: no messages), so a result needs no lookup of its batch. */
  readonly #sessionOf = new Map<string, string | undefined>();
  /**
   * Set for good once a second session records here, or a batch is recorded while another is open
   * (MCP sessions over HTTP, a library serving several agents): other calls then share this event
   * loop, most of them read-only and so never an open batch, and a flush must not stop them.
   */
  #concurrent = false;
  /** Batches this process staged and has not folded yet (see recordFinishedBatch). */
  #staged = 0;
  /** How much of it, in bytes (what this process holds in memory until it folds). */
  #stagedBytes = 0;
  /** Where read-only batches are staged, one line each (undefined: in SQLite, staged_batches). */
  readonly #files: StagingFiles | undefined;
  /** Batches this process staged in its file and has not folded yet, in order, with where each ends. */
  #inFile: { batch: StagedBatch; line: string; end: number }[] = [];
  /** The WAL-index header, to tell without SQLite that nobody committed (see #freshDataVersion). */
  readonly #walIndex: WalIndexHeader | undefined;

  #foldScheduled = false;
  #foldTimer: NodeJS.Timeout | undefined;
  #commits = 0;
  #checkpointScheduled = false;
  #closed = false;
  /** Within one write transaction: the next message seq per session (see #message). */
  readonly #nextSeq = new Map<string, number>();
  #firstSession: string | undefined;

  private constructor(
    location: string,
    db: Database.Database,
    uid: number | undefined,
    loadKey: () => Buffer,
  ) {
    this.#seals = new Seals(loadKey);
    this.location = location;
    this.file = location === ':memory:' ? undefined : location;
    this.#db = db;
    this.#stmt = prepareStatements(db);
    this.#transaction = db.transaction((fn: () => unknown) => fn());
    this.#wal = location === ':memory:' ? undefined : new WalSync(location);
    this.#files = location === ':memory:' ? undefined : StagingFiles.open(location, this.#owner, uid);
    this.#walIndex = location === ':memory:' ? undefined : new WalIndexHeader(location);
    const ctx = this.#context();
    this.#version = new DataVersion(this.#stmt, this.#walIndex);
    this.#approvals = new SqliteApprovals(ctx);
    this.#conversation = new SqliteConversation(ctx);
    this.#todos = new SqliteTodos(ctx);
    const self = this;
    this.#governance = new SqliteGovernance(ctx, this.#version, {
      get unreadable() {
        return self.#stuck.size;
      },
    });
    this.#grants = new SqliteGrants(ctx, this.#version);
    this.#retention = new SqliteRetention(ctx);
  }

  readonly #version: DataVersion;
  readonly #approvals: SqliteApprovals;
  readonly #conversation: SqliteConversation;
  readonly #todos: SqliteTodos;
  readonly #governance: SqliteGovernance;
  readonly #grants: SqliteGrants;
  readonly #retention: SqliteRetention;

  /** What the parts moved out so far work through (sqlite/sqlite-context.ts). */
  #context(): SqliteContext {
    const self = this;
    return {
      location: this.location,
      db: this.#db,
      stmt: this.#stmt,
      owner: this.#owner,
      sessionOf: this.#sessionOf,
      seals: this.#seals,
      pendingReads: this.#pendingReads,
      get closed() {
        return self.#closed;
      },
      write: (fn) => this.#write(fn),
      commit: (fn, fold) => this.#commit(fn, fold),
      foldForRead: (strict) => this.#foldForRead(strict),
      message: (session, role, content, batchId, callId, json) =>
        this.#message(session, role, content, batchId, callId, json),
      forgetSeqs: () => this.#nextSeq.clear(),
    };
  }

  /** This user's seal key (sqlite/seals.ts), read on first need: a journal without grants never reads it. */
  readonly #seals: Seals;

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
      journal.#foldForRead(); // batches a process staged before it died
      return journal;
    } catch (error) {
      db.close();
      if (error instanceof JournalError) throw error;
      throw explainSqliteError(error, file);
    }
  }

  /** Read-cache changes waiting for the next commit (pending-reads.ts). */
  readonly #pendingReads = new PendingReads();

  /**
   * Runs one write transaction, turning SQLite errors into JournalErrors. Batches this process
   * staged are folded first, so whatever it writes next lands after them (messages keep their order).
   */
  #write<T>(fn: () => T): T {
    return this.#commit(fn, this.#staged > 0);
  }

  #commit<T>(fn: () => T, fold: boolean): T {
    this.#nextSeq.clear(); // what another process appended since is read again inside the lock
    const reads = this.#pendingReads.pending();
    try {
      const out = this.#transaction.immediate(() => {
        if (fold) this.#foldStaged();
        for (const r of reads ?? []) this.#applyRead(r, Date.now());
        return fn();
      }) as T;
      if (fold) this.#folded();
      if (++this.#commits >= CHECKPOINT_EVERY) this.#checkpointSoon();
      this.#pendingReads.written(reads);
      return out;
    } catch (error) {
      throw explainSqliteError(error, this.location);
    }
  }

  /**
   * Inside a write transaction: every staged batch (this process's, or one a crash left) into
   * batches and calls, each in a savepoint of its own. A row that cannot be folded (damage: it was
   * written by this code, so nothing else makes one) stays where it is, named by
   * `unreadableStaged()`, and never stops the rows after it or any other write.
   */
  #foldStaged(): void {
    this.#foldRows();
    this.#foldLines();
  }

  /**
   * Inside the fold's transaction: this process's staged lines and every other file's, folded in
   * the order they were staged across files (the batch's time), so a session's messages keep their
   * order when it spans processes (review M2), and always in the order written within one file, so
   * a clock stepped back never reorders one process's own batches (review 13, 5); then how far each
   * file is folded.
   */
  #foldLines(): void {
    const own = this.#inFile.map((f) => ({ text: f.line, now: f.batch.now }));
    const { lists, marks } = this.#readOtherFiles();
    for (const text of mergeByTime([own, ...lists]))
      this.#foldOrKeep(
        () => this.#foldBatch(JSON.parse(text) as StagedBatch),
        () => text.trimEnd(),
      );
    const ownFile = this.#files?.own;
    const last = this.#inFile.at(-1);
    if (ownFile && last) this.#stmt.setStagedFile.run(ownFile.name, last.end, last.end);
    for (const [name, folded, seen] of marks) this.#stmt.setStagedFile.run(name, folded, seen);
  }

  /** After a commit that folded: what this process staged is in batches and calls now. */
  #folded(): void {
    this.#staged = 0;
    this.#stagedBytes = 0;
    this.#inFile = [];
    this.#files?.rotateIfLarge();
    // Files of writers gone from this PID namespace, folded to their end in that commit (a half
    // line there was never answered): nobody writes to them again (review 13, 6).
    for (const name of this.#goneFolded) this.#files?.remove(name);
    this.#goneFolded = [];
  }

  /** Other processes' files folded to the end in the fold under way, whose writers are gone. */
  #goneFolded: string[] = [];

  /**
   * Inside the fold's transaction: every other staging file's whole lines not folded yet, whoever
   * wrote them (a live process's too: nobody reads around a staged batch), in the order written,
   * for #foldLines; and how far each file will be folded then. Another process's file is removed
   * only when its writer is known gone (same host and PID namespace, no longer running) and all of
   * it is folded; a process in another namespace (a container sharing the folder) looks gone from
   * here while it still writes, so its file and half line stay (review H2). `seen` is the size
   * looked at, so a half line that never grows is not looked at again by every reader (review L4).
   */
  #readOtherFiles(): { lists: { text: string; now: number }[][]; marks: [string, number, number][] } {
    this.#goneFolded = [];
    const files = this.#files;
    const others = files?.others();
    // No folder, or one that could not be listed: no mark is forgotten (review M1).
    if (!files || !others) return { lists: [], marks: [] };
    const lists: { text: string; now: number }[][] = [];
    const out: [string, number, number][] = [];
    const marks = this.#stmt.stagedFiles.all() as StagedFileMark[];
    for (const { name } of marks)
      if (name !== files.own?.name && !others.some((f) => f.name === name) && files.isGone(name))
        this.#stmt.forgetStagedFile.run(name);
    const known = new Map(marks.map((m) => [m.name, m]));
    for (const file of others) {
      const mark = known.get(file.name);
      let from = mark?.folded ?? 0;
      const list: { text: string; now: number }[] = [];
      let gone = false;
      while (file.size > from) {
        const read = files.read(file.name, from);
        gone = read.gone;
        if (read.gone) break;
        for (const { text } of read.lines) list.push({ text, now: stagedAt(text) });
        from = read.lines.at(-1)?.end ?? from;
        if (!read.more || read.lines.length === 0) break; // (never a loop without progress)
      }
      if (list.length > 0) lists.push(list);
      if (mark?.folded !== from || mark.seen !== file.size) out.push([file.name, from, file.size]);
      if (!gone && files.removable && writerGone(file)) this.#goneFolded.push(file.name);
    }
    return { lists, marks: out };
  }

  /**
   * One staged batch in a savepoint of its own. One that cannot be folded (damage: nothing but this
   * code writes them) is kept as a staged row, named by unreadableStaged() from the next fold on,
   * and stops nothing else.
   */
  #foldOrKeep(fold: () => void, body: () => string): void {
    this.#savepoint ??= this.#db.transaction((fn: () => void) => fn());
    try {
      this.#savepoint(fold);
    } catch (error) {
      this.#rethrowIfNotTheRow(error);
      this.#nextSeq.clear(); // message numbers counted in memory were rolled back with it
      this.#stmt.stage.run(body());
    }
  }

  #savepoint: ((fn: () => void) => void) | undefined;

  /** A staged batch into batches and calls, with the reads that rode with it; once only. */
  #foldBatch(b: StagedBatch): void {
    if (this.#stmt.batchExists.get(b.id) !== undefined) return;
    this.#insertBatch(b.id, b.session, b.calls, b.options, b.now, b.finished, b.owner);
    for (const r of b.reads ?? []) this.#applyRead(r, b.now);
  }

  /** A read-cache change into the table, unless the row there is newer (whoever wrote it). */
  #applyRead(r: PendingRead, forgottenAt: number): void {
    if (r.record) this.#stmt.putRead.run(r.session, r.path, r.record.sha256, r.record.readAt);
    else this.#stmt.putRead.run(r.session, r.path, FORGOTTEN, r.at ?? forgottenAt);
  }

  /** The staged rows in SQLite (staged there when no file could take them, or damaged lines). */
  #foldRows(): void {
    const rows = this.#stmt.stagedBatches.all() as { seq: number; body: string }[];
    const last = rows.at(-1);
    if (!last) {
      this.#stuck = new Map();
      return;
    }
    // All rows in one savepoint first (the usual case: each row is good); only if one fails, again
    // row by row, each in a savepoint of its own, so one bad row stops none of the others.
    this.#foldAll ??= this.#db.transaction((texts: string[]) => {
      for (const text of texts) this.#insertStaged(text);
    });
    try {
      this.#foldAll(rows.map((r) => r.body));
      this.#stmt.clearStaged.run(last.seq);
      this.#stuck = new Map();
      return;
    } catch (error) {
      this.#rethrowIfNotTheRow(error);
      // One of them cannot be folded: find which, below. The message numbers counted in memory
      // were rolled back with it, so they are read again.
      this.#nextSeq.clear();
    }
    const stuck = new Map<number, string>();
    for (const row of rows) {
      try {
        this.#foldRow(row.body);
      } catch (error) {
        this.#rethrowIfNotTheRow(error);
        this.#nextSeq.clear();
        stuck.set(row.seq, (error as Error).message);
      }
    }
    if (stuck.size === 0) this.#stmt.clearStaged.run(last.seq);
    else for (const row of rows) if (!stuck.has(row.seq)) this.#stmt.deleteStaged.run(row.seq);
    this.#stuck = stuck;
  }

  #foldAll: ((texts: string[]) => void) | undefined;
  #foldOne: ((body: string) => void) | undefined;

  /**
   * A fold failure that is not the row's own (a full disk, an I/O error, a lock, or SQLite rolling
   * back the whole transaction) ends the write it happens in: going on would commit what follows
   * outside the transaction, and a good row would be called damaged.
   */
  #rethrowIfNotTheRow(error: unknown): void {
    const code = (error as { code?: string }).code ?? '';
    if (
      !this.#db.inTransaction ||
      /^SQLITE_(FULL|IOERR|NOMEM|BUSY|LOCKED|READONLY|CORRUPT|NOTADB|CANTOPEN)/.test(code)
    )
      throw error;
  }

  /** One staged batch into batches and calls (a savepoint: all of it or nothing). */
  #foldRow(body: string): void {
    this.#foldOne ??= this.#db.transaction((text: string) => this.#insertStaged(text));
    this.#foldOne(body);
  }

  #insertStaged(body: string): void {
    this.#foldBatch(JSON.parse(body) as StagedBatch);
  }

  /**
   * One line in this process's staging file, or where there is none, one row in one commit; either
   * way on disk before anyone sees a result. Batches and calls get it off the reply's path. The
   * read records waiting for the next commit ride in the line (they are as durable as it is).
   */
  #stage(batch: StagedBatch): void {
    const files = this.#files;
    const reads = this.#pendingReads.pending();
    const staged = reads ? { ...batch, reads } : batch;
    const line = `${JSON.stringify(staged)}\n`;
    this.#stagedBytes += line.length * 3; // bytes at most (review M3)
    if (!this.#closed && files?.append(line)) {
      this.#pendingReads.written(reads);
      // Folded from the line as written (the objects are the caller's: review L5).
      this.#inFile.push({ batch: staged, line, end: files.own?.size ?? 0 });
    } else {
      // After what this process staged in its file (folded first), so messages keep their order.
      this.#commit(() => this.#stmt.stage.run(JSON.stringify(batch)), this.#inFile.length > 0);
    }
    this.#staged++;
    this.#foldSoon();
  }

  /** Staged rows the last fold could not read, by seq, with why (see #foldStaged). */
  #stuck = new Map<number, string>();

  /** Staged batches that cannot be read (a damaged row): kept, skipped by folding, named here. */
  unreadableStaged(): { seq: number; problem: string }[] {
    this.#foldForRead();
    return [...this.#stuck].map(([seq, problem]) => ({ seq, problem }));
  }

  /** Removes unreadable staged rows (after `unreadableStaged()` showed them); returns their bodies. */
  dropUnreadableStaged(): { seq: number; body: string }[] {
    this.#foldForRead();
    const seqs = [...this.#stuck.keys()];
    return this.#write(() =>
      seqs.flatMap((seq) => {
        const row = this.#stmt.stagedBody.get(seq) as { body: string } | undefined;
        this.#stmt.deleteStaged.run(seq);
        this.#stuck.delete(seq);
        return row ? [{ seq, body: row.body }] : [];
      }),
    );
  }

  /**
   * Folds off the reply's path, many at a time: rows of one-call batches share pages, so a fold
   * of 64 writes a few pages where 64 commits of their own would write four each. Readers, other
   * writes and close() fold at once, so nobody ever reads around a staged batch.
   */
  #foldSoon(): void {
    if (this.#staged >= FOLD_AT || this.#stagedBytes >= FOLD_AT_BYTES) {
      clearTimeout(this.#foldTimer);
      this.#foldTimer = undefined;
      if (!this.#foldScheduled) {
        this.#foldScheduled = true;
        setImmediate(() => this.#foldNow()).unref();
      }
    } else this.#foldTimer ??= setTimeout(() => this.#foldNow(), FOLD_AFTER_MS).unref();
  }

  #foldNow(): void {
    this.#foldScheduled = false;
    clearTimeout(this.#foldTimer);
    this.#foldTimer = undefined;
    if (this.#closed || this.#staged === 0) return;
    try {
      this.#write(() => undefined);
    } catch {
      // Left staged: folded by the next write, read or open, where a failure is reported.
    }
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
        this.#db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // Busy or failing: the WAL only grows until a later one (or close) succeeds.
      }
    };
    // A checkpoint fsyncs the WAL: not while a written file's flush runs (see sync()).
    setImmediate(() => {
      if (pendingFileSyncs.idle) checkpoint();
      else void pendingFileSyncs.drained().then(checkpoint);
    }).unref();
  }

  /** Before reading batches, calls or messages: none of them is still staged, here or by a process that died. */
  #foldForRead(strict = false): void {
    // Rows known to be unreadable are not worth a write lock on every read: only new ones are.
    if (
      this.#staged === 0 &&
      (this.#stmt.countStaged.get() as number) <= this.#stuck.size &&
      !this.#othersStaged()
    )
      return;
    try {
      this.#commit(() => undefined, true);
    } catch (error) {
      // A reader that cannot write now (busy, read-only file) reads what is folded, unless what it
      // reads must not miss anything (a rate limit's count).
      if (strict) throw error;
    }
  }

  /** Whether another staging file holds whole lines not folded yet (any process's, live or gone). */
  #othersStaged(): boolean {
    const others = this.#files?.others();
    if (others === undefined) return this.#files !== undefined; // cannot list: fold to be sure
    if (others.length === 0) return false;
    const seen = new Map((this.#stmt.stagedFiles.all() as StagedFileMark[]).map((m) => [m.name, m.seen]));
    // A file that grew, or shrank (a half line cut off, then a shorter line written: review 13, 7).
    const removable = this.#files?.removable === true;
    return others.some((f) => f.size !== (seen.get(f.name) ?? 0) || (removable && writerGone(f)));
  }

  /**
   * Everything committed so far is on disk (survives a power loss) when this resolves. Concurrent
   * callers (several open batches: MCP sessions over HTTP) share one fsync, and the event loop is
   * not blocked meanwhile.
   */
  async sync(): Promise<void> {
    if (!this.#wal) return;
    // What this process staged is folded into the WAL first, so the fsync covers it (review L3).
    if (this.#staged > 0) this.#write(() => undefined);
    // Files written by this process are on disk before the rows that say they were (any session).
    if (!pendingFileSyncs.idle) await pendingFileSyncs.drained();
    // From the second fsync on: a process that syncs once (`toolgate exec` of one write) would
    // only pay for the zeros.
    if (this.#synced++ > 0) this.#reserveWal();
    try {
      // Alone (one session, one open batch, no flush under way): nobody to share an fsync with or
      // to hold up, so it runs here rather than pay the thread pool's round trip.
      if (!this.#concurrent && this.#sessionOf.size <= 1 && !this.#wal.busy) this.#wal.syncNow();
      else await this.#wal.sync();
    } catch (error) {
      throw new JournalError(
        `the journal ${this.location} could not be flushed to disk (${(error as Error).message}); check the disk, then retry`,
      );
    }
  }

  /** fsyncs asked for so far (see sync). */
  #synced = 0;
  /**
   * The WAL file's size as last seen. It only grows while a connection is open (unless someone
   * truncates it by hand: then the room is not topped up, and the WAL grows as it writes).
   */
  #walSize = 0;

  /**
   * Room written ahead in the WAL before an fsync, so that commits overwrite it in place: the
   * fdatasync of a file that grew must commit its new size to the file system's journal, one that
   * was written in place need not (~50-90 µs less per side effect here; BENCHMARKS.md, session 13).
   * Under SQLite's write lock (an immediate transaction that writes nothing), past the log's end
   * (wal-sync.ts). Once the log restarts after a checkpoint, it reuses what is there. Anything that
   * fails leaves the WAL to grow as it writes.
   */
  #reserveWal(): void {
    const wal = this.#wal;
    const walIndex = this.#walIndex;
    if (!wal || !walIndex) return;
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

  /** Appends a message; `json` is its content already serialized (to serialize a result once). */
  #message(
    session: string,
    role: MessageRecord['role'],
    content: unknown,
    batchId: string | null,
    callId: string | null,
    json = JSON.stringify(content),
  ) {
    // Looked up once per session and transaction: the write lock is held, nobody else appends.
    const seq = this.#nextSeq.get(session) ?? (this.#stmt.nextSeq.get(session) as { seq: number }).seq;
    this.#nextSeq.set(session, seq + 1);
    this.#stmt.insertMessage.run(session, seq, role, batchId, callId, json, Date.now());
  }

  /** Notes who records here (see #concurrent). */
  #noteSession(session: string): void {
    if (this.#concurrent) return;
    this.#firstSession ??= session;
    if (session !== this.#firstSession || this.#sessionOf.size > 0) this.#concurrent = true;
  }

  beginBatch(session: string, calls: readonly ToolCall[], options: BeginBatchOptions = {}): string {
    this.#noteSession(session);
    const id = options.batchId ?? randomUUID();
    this.#write(() => this.#insertBatch(id, session, calls, options, Date.now()));
    this.#sessionOf.set(id, options.messages === false ? undefined : session);
    return id;
  }

  recordFinishedBatch(
    session: string,
    calls: readonly ToolCall[],
    finished: readonly FinishedCall[],
    options: BeginBatchOptions = {},
  ): string {
    this.#noteSession(session);
    const now = Date.now();
    if (options.batchId !== undefined) {
      // Begun over calls journaled while streaming: its rows exist, so it is finished in place.
      this.#write(() => this.#insertBatch(options.batchId as string, session, calls, options, now, finished));
      return options.batchId;
    }
    // One row in one commit before anyone sees a result; batches and calls get it off the reply's path.
    const id = randomUUID();
    this.#stage({ id, session, calls, finished, options, now, owner: this.#owner });
    return id;
  }

  /**
   * The batch, its calls (with their decisions) and the assistant message; with `finished`, each
   * call's result and `tool` message too, and the batch complete: then each row is written once.
   */
  #insertBatch(
    id: string,
    session: string,
    calls: readonly ToolCall[],
    options: BeginBatchOptions,
    now: number,
    finished?: readonly FinishedCall[],
    owner = this.#owner,
  ): void {
    this.#stmt.ensureSession.run(session, now);
    // Calls already journaled while streaming (recordStreamedCall) are kept; the rest are added.
    const existing =
      options.batchId === undefined ? undefined : (this.#stmt.batch.get(id) as BatchRow | undefined);
    const streamed = existing !== undefined;
    // Begun over calls journaled while streaming: only if nobody settled or took the batch meanwhile.
    if (
      existing &&
      (existing.status !== 'open' || (existing.lease_owner && existing.lease_owner !== options.lease?.worker))
    )
      throw takenOver(id);
    const text = options.assistantText ?? null;
    if (streamed) this.#stmt.setAssistantText.run(text, id);
    else if (finished) this.#stmt.insertFinishedBatch.run(id, session, text, now, now, owner);
    else
      this.#stmt.insertBatch.run(
        id,
        session,
        'open',
        text,
        now,
        owner,
        this.#seals.batchSeal(id, session, now),
      );
    if (options.lease && !finished)
      this.#stmt.setLease.run(options.lease.worker, now + options.lease.ttlMs, id);
    const running = finished ? undefined : options.running;
    const known = streamed
      ? new Set((this.#stmt.calls.all(id) as CallRow[]).map((c) => c.call_index))
      : undefined;
    const plan = new Map((options.plan ?? []).map((e) => [e.index, e]));
    const resultJson = finished?.map((f) => JSON.stringify(f.result));
    for (const [index, call] of calls.entries()) {
      if (known?.has(index)) continue;
      const decision = decisionJson(plan.get(index));
      const f = finished?.[index];
      if (f) {
        this.#stmt.insertFinishedCall.run({
          batch: id,
          index,
          callId: call.id,
          name: call.name,
          args: JSON.stringify(call.arguments),
          status: f.status,
          decision,
          result: resultJson?.[index] ?? null,
          started: f.startedAt ?? null,
          finished: f.finishedAt,
        });
      } else {
        this.#stmt.insertCall.run(id, index, call.id, call.name, JSON.stringify(call.arguments), decision);
      }
    }
    for (const entry of options.plan ?? []) {
      // New calls got their decision as they were inserted; streamed ones get it now.
      if (known?.has(entry.index)) this.#applyPlan(id, entry);
      else if (entry.approval && !finished)
        this.#applyPlan(id, { index: entry.index, approval: entry.approval });
    }
    // The first call starts at once: `running` in this same commit (one commit fewer before it).
    if (running !== undefined) this.#setRunning(id, running, options.lease, now);
    // Without a conversation, the assistant record is kept only for what the calls do not hold
    // (e.g. arguments a host injected, taken out before validation).
    if (options.messages === false && !options.assistant) return;
    // FR-RES-01: the assistant message with its tool uses, in call order.
    this.#message(session, 'assistant', assistantMessage(options, text, calls), id, null);
    if (options.messages === false) return;
    for (const [i, f] of (finished ?? []).entries())
      this.#message(session, 'tool', f.result, id, f.result.id, resultJson?.[i]);
  }

  #applyPlan(batchId: string, entry: PlanEntry): void {
    const value = decisionJson(entry);
    if (value !== null) this.#stmt.setDecision.run(value, batchId, entry.index);
    if (entry.approval) {
      this.#stmt.setAwaiting.run(JSON.stringify(entry.approval), batchId, entry.index);
      this.#stmt.setBatchStatus.run('awaiting_approval', batchId);
    }
  }

  recordStreamedCall(session: string, batchId: string, index: number, call: ToolCall, lease?: Lease): void {
    const now = Date.now();
    this.#write(() => {
      this.#stmt.ensureSession.run(session, now);
      if (!this.#stmt.batch.get(batchId)) {
        this.#stmt.insertBatch.run(
          batchId,
          session,
          'open',
          null,
          now,
          this.#owner,
          this.#seals.batchSeal(batchId, session, now),
        );
        // Held while the model is still writing the rest: no one takes over a batch still streaming.
        if (lease) this.#stmt.setLease.run(lease.worker, now + lease.ttlMs, batchId);
      }
      this.#stmt.insertCall.run(batchId, index, call.id, call.name, JSON.stringify(call.arguments), null);
    });
  }

  /** Re-planning a pending batch (after a restart) records today's decisions over the old ones. */
  replan(batchId: string, plan: readonly PlanEntry[]): void {
    this.#write(() => {
      for (const entry of plan) this.#applyPlan(batchId, entry);
    });
  }

  markApproved(batchId: string, indexes: readonly number[], lease?: Lease): void {
    this.#write(() => {
      const row = this.#stmt.batch.get(batchId) as BatchRow | undefined;
      if (!row || (row.status !== 'open' && row.status !== 'awaiting_approval')) throw takenOver(batchId);
      if (lease && row.lease_owner && row.lease_owner !== lease.worker)
        throw leaseLost(batchId, lease.worker);
      for (const index of indexes) this.#stmt.setStatus.run('approved', batchId, index);
      this.#stmt.setBatchStatus.run('open', batchId);
    });
  }

  markRunning(batchId: string, index: number, lease?: Lease): void {
    this.#write(() => this.#setRunning(batchId, index, lease, Date.now()));
  }

  /** Inside a write: the call is running now, if its batch may still run it (and this worker holds it). */
  #setRunning(batchId: string, index: number, lease: Lease | undefined, now: number): void {
    if (!lease) {
      if (this.#stmt.setRunning.run(now, batchId, index).changes === 0) throw notStartable(batchId, index);
      return;
    }
    const changed = this.#stmt.setRunningLeased.run({
      now,
      batch: batchId,
      index,
      worker: lease.worker,
    }).changes;
    if (changed === 0) throw leaseLost(batchId, lease.worker);
  }

  markNotStarted(batchId: string, index: number): void {
    this.#write(() => this.#stmt.setNotStarted.run(batchId, index));
  }

  renewLease(batchId: string, lease: Lease): boolean {
    const now = Date.now();
    return this.#write(() => this.#stmt.renewLease.run(now + lease.ttlMs, batchId, lease.worker).changes) > 0;
  }

  claimExpiredBatch(lease: Lease, batchId?: string): BatchRecord | undefined {
    const now = Date.now();
    const until = now + lease.ttlMs;
    // Found and taken in one write transaction (the write lock held): two workers never both take it.
    const id = this.#write(() => {
      // A lease of a process known to have ended here holds nothing, even before it runs out: a
      // batch SIGKILLed a moment ago is taken over at once, not 30 s later (issue #31 §3).
      const gone = JSON.stringify(
        (this.#stmt.liveLeaseWorkers.all(now) as string[]).filter((w) => w !== lease.worker && workerGone(w)),
      );
      if (batchId !== undefined) {
        const taken = this.#stmt.claimOne.run({
          worker: lease.worker,
          until,
          id: batchId,
          now,
          gone,
        }).changes;
        return taken > 0 ? batchId : undefined;
      }
      // A worker takes over on its own only batches this user's toolgate journaled here (sealed):
      // one planted in the journal (a committed .toolgate/journal.db) waits for a person to name it.
      const key = this.#seals.keyToRead();
      let found: string | undefined;
      for (const r of this.#stmt.expiredLease.iterate({ now, gone }) as IterableIterator<BatchSealRow>) {
        if (!sealValid(key, 'batch', batchFields(r), r.seal)) continue;
        found = r.id;
        break;
      }
      if (found !== undefined) this.#stmt.setLease.run(lease.worker, until, found);
      return found;
    });
    return id === undefined ? undefined : this.batch(id);
  }

  recordResult(
    batchId: string,
    index: number,
    result: ToolResult,
    status: 'done' | 'denied' | 'unknown' = 'done',
    finish?: { lease?: Lease },
  ): boolean {
    const completed = this.#write(() => {
      const json = JSON.stringify(result);
      this.#stmt.setResult.run(status, json, Date.now(), batchId, index);
      const session = this.#sessionOf.has(batchId)
        ? this.#sessionOf.get(batchId)
        : (this.#stmt.batch.get(batchId) as BatchRow | undefined)?.session_id;
      if (session !== undefined) this.#message(session, 'tool', result, batchId, result.id, json);
      if (!finish) return false;
      try {
        this.#complete(batchId, finish.lease);
        return true;
      } catch {
        // The result is what must be committed; finishBatch is tried again after (as before).
        return false;
      }
    });
    if (completed) this.#sessionOf.delete(batchId);
    return completed;
  }

  finishBatch(batchId: string, lease?: Lease): void {
    this.#write(() => this.#complete(batchId, lease));
    this.#sessionOf.delete(batchId);
  }

  #complete(batchId: string, lease: Lease | undefined): void {
    this.#stmt.completeBatch.run({ now: Date.now(), batch: batchId, worker: lease?.worker ?? null });
  }

  getReadRecord(session: string, file: string): ReadRecord | undefined {
    const pending = this.#pendingReads.get(session, file);
    if (pending) return pending.record ?? undefined;
    // Another process's staged lines may hold a newer record than ours: all are folded first, the
    // newest winning (review M2); then ours, still staged, against the table: the newer one.
    if (this.#othersStaged()) this.#foldForRead();
    const row = this.#stmt.getRead.get(session, file) as { sha256: string; read_at: number } | undefined;
    let newest = row ? { record: { sha256: row.sha256, readAt: row.read_at }, at: row.read_at } : undefined;
    for (let i = this.#inFile.length - 1; i >= 0; i--) {
      const entry = this.#inFile[i];
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
    this.#pendingReads.put(session, file, record);
  }

  deleteReadRecord(session: string, file: string): void {
    this.#pendingReads.forget(session, file, Date.now());
  }

  #toRecord(row: BatchRow): BatchRecord {
    return batchRecord(row, (this.#stmt.calls.all(row.id) as CallRow[]).map(callRecord));
  }

  batch(batchId: string): BatchRecord | undefined {
    this.#foldForRead();
    const row = this.#stmt.batch.get(batchId) as BatchRow | undefined;
    return row ? this.#toRecord(row) : undefined;
  }

  batchIdsStartingWith(prefix: string, limit: number): string[] {
    if (prefix === '') return [];
    this.#foldForRead();
    return (this.#stmt.batchIdsStartingWith.all({ prefix, limit }) as { id: string }[]).map((r) => r.id);
  }

  recentBatches(limit: number): BatchSummary[] {
    this.#foldForRead();
    return (this.#stmt.recent.all(limit) as SummaryRow[]).map(batchSummary);
  }

  incompleteBatches(): BatchRecord[] {
    this.#foldForRead();
    return (this.#stmt.incomplete.all() as BatchRow[]).map((row) => this.#toRecord(row));
  }

  #settle(
    batchId: string,
    status: 'resumed' | 'discarded',
    decide: (call: CallRecord) => Settlement,
    worker?: string,
  ) {
    const now = Date.now();
    let results: ToolResult[] = [];
    // One transaction: staged batches (any process's) folded first, so the session's messages keep
    // their order; then the batch checked, so a settle or discard by another process cannot land
    // between the check and the write.
    this.#commit(() => {
      const row = this.#stmt.batch.get(batchId) as BatchRow | undefined;
      const record = settleable(row ? this.#toRecord(row) : undefined, batchId, this.location, now, worker);
      results = settleCalls(record.calls, decide, (call, outcome, json) => {
        if (outcome.discard) {
          this.#stmt.discard.run(json, outcome.status, now, batchId, call.index);
        } else {
          this.#stmt.setResult.run(outcome.status, json, now, batchId, call.index);
          this.#message(record.session, 'tool', outcome.result, batchId, call.id, json);
        }
      });
      this.#stmt.finishBatch.run(status, now, batchId);
    }, true);
    this.#sessionOf.delete(batchId);
    return results;
  }

  resumeBatch(batchId: string, worker?: string): ToolResult[] {
    return this.#settle(batchId, 'resumed', resumeSettlement, worker);
  }

  discardBatch(batchId: string, worker?: string): ToolResult[] {
    return this.#settle(batchId, 'discarded', discardSettlement, worker);
  }

  // The approval queue (sqlite/approvals.ts).

  pendingApprovals(): PendingApproval[] {
    return this.#approvals.pendingApprovals();
  }

  answerApproval(answer: Omit<ApprovalAnswer, 'at'>): boolean {
    return this.#approvals.answerApproval(answer);
  }

  /** Only answers this user's toolgate recorded here (sealed): a planted one answers nothing. */
  approvalAnswers(batchId: string): ApprovalAnswer[] {
    return this.#approvals.approvalAnswers(batchId);
  }

  /** SQLite has no notifications: the caller looks again after `waitMs` (and backs off). */
  approvalsChanged(signal: AbortSignal, waitMs: number): Promise<void> {
    return this.#approvals.approvalsChanged(signal, waitMs);
  }

  // The conversation (sqlite/conversation.ts).

  appendMessage(session: string, role: MessageRecord['role'], content: unknown): void {
    this.#conversation.appendMessage(session, role, content);
  }

  messages(session: string): MessageRecord[] {
    return this.#conversation.messages(session);
  }

  // Todo lists (sqlite/todos.ts).

  todos(session: string): Todo[] {
    return this.#todos.todos(session);
  }

  saveTodos(session: string, todos: readonly Todo[]): void {
    this.#todos.saveTodos(session, todos);
  }

  atOneMoment<T>(fn: () => T): T {
    return this.#version.atOneMoment(fn);
  }

  // Governance (sqlite/governance.ts).

  noteRefusals(times: readonly number[]): void {
    this.#governance.noteRefusals(times);
  }

  refusalsSince(since: number): number {
    return this.#governance.refusalsSince(since);
  }

  governanceMode(): ModeRecord | undefined {
    return this.#governance.governanceMode();
  }

  recordMode(mode: GovernanceMode, reason: string, actor: string): ModeRecord {
    return this.#governance.recordMode(mode, reason, actor);
  }

  /** Mode changes this user's toolgate recorded here, newest first: a planted one changes nothing. */
  modeHistory(limit: number): ModeRecord[] {
    return this.#governance.modeHistory(limit);
  }

  countCallsSince(tool: string, since: number): number {
    return this.#governance.countCallsSince(tool, since);
  }

  // Grants (sqlite/grants.ts).

  listGrants(session: string): Grant[] {
    return this.#grants.listGrants(session);
  }

  addGrant(grant: Grant): void {
    this.#grants.addGrant(grant);
  }

  /** Every grant row, those not made by this user here marked (they allow nothing; `grants list`). */
  allGrants(): Grant[] {
    return this.#grants.allGrants();
  }

  revokeGrant(id: number): boolean {
    return this.#grants.revokeGrant(id);
  }

  revokeGrants(session?: string): number {
    return this.#grants.revokeGrants(session);
  }

  // Retention (sqlite/retention.ts).

  prune(before: number, maxBatches?: number): { batches: number; calls: number; messages: number } {
    return this.#retention.prune(before, maxBatches);
  }

  exportCalls(since: number): Generator<ExportedCall> {
    return this.#retention.exportCalls(since);
  }

  /** The durability settings in force on this connection (for `toolgate journal` and tests). */
  settings(): { journalMode: string; synchronous: number; busyTimeoutMs: number; schemaVersion: number } {
    return {
      journalMode: this.#db.pragma('journal_mode', { simple: true }) as string,
      synchronous: this.#db.pragma('synchronous', { simple: true }) as number,
      busyTimeoutMs: this.#db.pragma('busy_timeout', { simple: true }) as number,
      schemaVersion: this.#db.pragma('user_version', { simple: true }) as number,
    };
  }

  close(): void {
    try {
      // Nothing recorded is dropped: read records are written, staged batches folded.
      if (this.#pendingReads.size > 0 || this.#staged > 0) this.#write(() => undefined);
      this.#files?.removeOwn(); // all of it is in batches and calls now
    } catch {
      // A journal that cannot write any more: what it staged stays for the next opener to fold.
      this.#files?.closeOwn();
    }
    try {
      pendingFileSyncs.flushSync(); // files still being flushed reach the disk before rows about them
      this.#wal?.syncNow(); // what was committed since the last sync() reaches the disk too
    } catch {
      // No WAL (nothing was ever written) or it is gone: SQLite's close checkpoints what there is.
    } finally {
      this.#closed = true;
      clearTimeout(this.#foldTimer);
      this.#wal?.close();
      this.#db.close();
      this.#walIndex?.release(); // after SQLite's own connection: no lock of it is dropped
    }
  }
}
