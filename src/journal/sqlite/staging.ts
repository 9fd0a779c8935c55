import type { ToolCall } from '../../core/tool-call.js';
import type { PendingRead } from '../common/pending-reads.js';
import type { BeginBatchOptions, FinishedCall } from '../journal-types.js';
import { type StagingFiles, writerGone } from '../staging-files.js';
import { Fold } from './fold.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * Staged batches are folded when this many wait, or this many bytes of them, or this long after the
 * first (see #foldSoon). A fold costs its event loop about 15 µs a batch: a few ms at most, and a
 * staged batch is as durable as a folded one, so nothing is gained by folding sooner.
 */
const FOLD_AT = 256;
const FOLD_AT_BYTES = 4 << 20;
const FOLD_AFTER_MS = 1000;

/** A read-only batch as staged (recordFinishedBatch): everything insertBatch needs to write it. */
export interface StagedBatch {
  id: string;
  session: string;
  calls: readonly ToolCall[];
  finished: readonly FinishedCall[];
  options: BeginBatchOptions;
  now: number;
  owner: string;
  /** Read-cache changes that ride with the batch (they were due in its commit: see PendingReads). */
  reads?: PendingRead[];
}

/** A batch this process staged in its file and has not folded yet, with where its line ends. */
export type StagedLine = { batch: StagedBatch; line: string; end: number };

/** How far a staging file is folded, and how big it was when last looked at. */
export type StagedFileMark = { name: string; folded: number; seen: number };

/**
 * Finished read-only batches, staged: one line each in a file of this process's own
 * (staging-files.ts), or one row (`staged_batches`) where no file can be used; either way on disk
 * before anyone sees a result. Folded into batches and calls off the reply's path (fold.ts), and
 * at once before any other write or any read, so nobody ever reads around a staged batch.
 */
export class Staging {
  readonly #ctx: SqliteContext;
  /** Where read-only batches are staged, one line each (undefined: in SQLite, staged_batches). */
  readonly #files: StagingFiles | undefined;
  readonly #fold: Fold;
  /** Batches this process staged and has not folded yet (see recordFinishedBatch). */
  #staged = 0;
  /** How much of it, in bytes (what this process holds in memory until it folds). */
  #stagedBytes = 0;
  /** Batches this process staged in its file and has not folded yet, in order, with where each ends. */
  #inFile: StagedLine[] = [];
  #foldScheduled = false;
  #foldTimer: NodeJS.Timeout | undefined;

  constructor(ctx: SqliteContext, files: StagingFiles | undefined) {
    this.#ctx = ctx;
    this.#files = files;
    this.#fold = new Fold(ctx, files);
  }

  /** Batches this process staged and has not folded yet. */
  get staged(): number {
    return this.#staged;
  }

  /** This process's staging files (undefined: none, staged in SQLite). */
  get files(): StagingFiles | undefined {
    return this.#files;
  }

  /** This process's batches staged in its file and not folded yet, in order. */
  get inFile(): readonly StagedLine[] {
    return this.#inFile;
  }

  /** How many staged rows the last fold could not read. */
  get unreadable(): number {
    return this.#fold.stuck.size;
  }

  /**
   * One line in this process's staging file, or where there is none, one row in one commit; either
   * way on disk before anyone sees a result. Batches and calls get it off the reply's path. The
   * read records waiting for the next commit ride in the line (they are as durable as it is).
   */
  stage(batch: StagedBatch): void {
    const files = this.#files;
    const pendingReads = this.#ctx.pendingReads;
    const reads = pendingReads.pending();
    const staged = reads ? { ...batch, reads } : batch;
    const line = `${JSON.stringify(staged)}\n`;
    this.#stagedBytes += line.length * 3; // bytes at most (review M3)
    if (!this.#ctx.closed && files?.append(line)) {
      pendingReads.written(reads);
      // Folded from the line as written (the objects are the caller's: review L5).
      this.#inFile.push({ batch: staged, line, end: files.own?.size ?? 0 });
    } else {
      // After what this process staged in its file (folded first), so messages keep their order.
      this.#ctx.commit(() => this.#ctx.stmt.stage.run(JSON.stringify(batch)), this.#inFile.length > 0);
    }
    this.#staged++;
    this.#foldSoon();
  }

  /**
   * Inside a write transaction: every staged batch (this process's, or one a crash left) into
   * batches and calls, each in a savepoint of its own. A row that cannot be folded (damage: it was
   * written by this code, so nothing else makes one) stays where it is, named by
   * `unreadableStaged()`, and never stops the rows after it or any other write.
   */
  foldStaged(): void {
    this.#fold.run(this.#inFile);
  }

  /** After a commit that folded: what this process staged is in batches and calls now. */
  folded(): void {
    this.#staged = 0;
    this.#stagedBytes = 0;
    this.#inFile = [];
    this.#files?.rotateIfLarge();
    this.#fold.removeGone();
  }

  /** Staged batches that cannot be read (a damaged row): kept, skipped by folding, named here. */
  unreadableStaged(): { seq: number; problem: string }[] {
    this.foldForRead();
    return [...this.#fold.stuck].map(([seq, problem]) => ({ seq, problem }));
  }

  /** Removes unreadable staged rows (after `unreadableStaged()` showed them); returns their bodies. */
  dropUnreadableStaged(): { seq: number; body: string }[] {
    this.foldForRead();
    const seqs = [...this.#fold.stuck.keys()];
    return this.#ctx.write(() =>
      seqs.flatMap((seq) => {
        const row = this.#ctx.stmt.stagedBody.get(seq) as { body: string } | undefined;
        this.#ctx.stmt.deleteStaged.run(seq);
        this.#fold.stuck.delete(seq);
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
    if (this.#ctx.closed || this.#staged === 0) return;
    try {
      this.#ctx.write(() => undefined);
    } catch {
      // Left staged: folded by the next write, read or open, where a failure is reported.
    }
  }

  /** No fold waits any more (the journal closed). */
  stopTimer(): void {
    clearTimeout(this.#foldTimer);
  }

  /** Before reading batches, calls or messages: none of them is still staged, here or by a process that died. */
  foldForRead(strict = false): void {
    // Rows known to be unreadable are not worth a write lock on every read: only new ones are.
    if (
      this.#staged === 0 &&
      (this.#ctx.stmt.countStaged.get() as number) <= this.#fold.stuck.size &&
      !this.othersStaged()
    )
      return;
    try {
      this.#ctx.commit(() => undefined, true);
    } catch (error) {
      // A reader that cannot write now (busy, read-only file) reads what is folded, unless what it
      // reads must not miss anything (a rate limit's count).
      if (strict) throw error;
    }
  }

  /** Whether another staging file holds whole lines not folded yet (any process's, live or gone). */
  othersStaged(): boolean {
    const others = this.#files?.others();
    if (others === undefined) return this.#files !== undefined; // cannot list: fold to be sure
    if (others.length === 0) return false;
    const seen = new Map((this.#ctx.stmt.stagedFiles.all() as StagedFileMark[]).map((m) => [m.name, m.seen]));
    // A file that grew, or shrank (a half line cut off, then a shorter line written: review 13, 7).
    const removable = this.#files?.removable === true;
    return others.some((f) => f.size !== (seen.get(f.name) ?? 0) || (removable && writerGone(f)));
  }
}
