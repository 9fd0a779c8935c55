import { type StagingFiles, writerGone } from '../staging-files.js';
import { insertBatch } from './insert-batch.js';
import { applyRead } from './read-records.js';
import type { SqliteContext } from './sqlite-context.js';
import type { StagedBatch, StagedFileMark, StagedLine } from './staging.js';

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

/**
 * Folding, inside a write transaction: every staged batch (this process's lines, every other
 * process's files, the rows staged in SQLite) into batches and calls, each once, in a savepoint of
 * its own; what cannot be folded is kept and named (`stuck`), and stops nothing else.
 */
export class Fold {
  readonly #ctx: SqliteContext;
  readonly #files: StagingFiles | undefined;
  #stuck = new Map<number, string>();
  /** Other processes' files folded to the end in the fold under way, whose writers are gone. */
  #goneFolded: string[] = [];
  #savepoint: ((fn: () => void) => void) | undefined;
  #foldAll: ((texts: string[]) => void) | undefined;
  #foldOne: ((body: string) => void) | undefined;

  constructor(ctx: SqliteContext, files: StagingFiles | undefined) {
    this.#ctx = ctx;
    this.#files = files;
  }

  /** Staged rows the last fold could not read, by seq, with why (see #foldRows). */
  get stuck(): Map<number, string> {
    return this.#stuck;
  }

  /** Inside the fold's transaction: the rows staged in SQLite, then the staged lines (`own`: this process's). */
  run(own: readonly StagedLine[]): void {
    this.#foldRows();
    this.#foldLines(own);
  }

  /**
   * After the fold's commit: files of writers gone from this PID namespace, folded to their end in
   * that commit (a half line there was never answered): nobody writes to them again (review 13, 6).
   */
  removeGone(): void {
    for (const name of this.#goneFolded) this.#files?.remove(name);
    this.#goneFolded = [];
  }

  /**
   * Inside the fold's transaction: this process's staged lines and every other file's, folded in
   * the order they were staged across files (the batch's time), so a session's messages keep their
   * order when it spans processes (review M2), and always in the order written within one file, so
   * a clock stepped back never reorders one process's own batches (review 13, 5); then how far each
   * file is folded.
   */
  #foldLines(inFile: readonly StagedLine[]): void {
    const own = inFile.map((f) => ({ text: f.line, now: f.batch.now }));
    const { lists, marks } = this.#readOtherFiles();
    for (const text of mergeByTime([own, ...lists]))
      this.#foldOrKeep(
        () => this.#foldBatch(JSON.parse(text) as StagedBatch),
        () => text.trimEnd(),
      );
    const ownFile = this.#files?.own;
    const last = inFile.at(-1);
    const stmt = this.#ctx.stmt;
    if (ownFile && last) stmt.setStagedFile.run(ownFile.name, last.end, last.end);
    for (const [name, folded, seen] of marks) stmt.setStagedFile.run(name, folded, seen);
  }

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
    const marks = this.#ctx.stmt.stagedFiles.all() as StagedFileMark[];
    for (const { name } of marks)
      if (name !== files.own?.name && !others.some((f) => f.name === name) && files.isGone(name))
        this.#ctx.stmt.forgetStagedFile.run(name);
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
    this.#savepoint ??= this.#ctx.db.transaction((fn: () => void) => fn());
    try {
      this.#savepoint(fold);
    } catch (error) {
      this.#rethrowIfNotTheRow(error);
      this.#ctx.forgetSeqs(); // message numbers counted in memory were rolled back with it
      this.#ctx.stmt.stage.run(body());
    }
  }

  /** A staged batch into batches and calls, with the reads that rode with it; once only. */
  #foldBatch(b: StagedBatch): void {
    const stmt = this.#ctx.stmt;
    if (stmt.batchExists.get(b.id) !== undefined) return;
    insertBatch(this.#ctx, b.id, b.session, b.calls, b.options, b.now, b.finished, b.owner);
    for (const r of b.reads ?? []) applyRead(stmt, r, b.now);
  }

  /** The staged rows in SQLite (staged there when no file could take them, or damaged lines). */
  #foldRows(): void {
    const stmt = this.#ctx.stmt;
    const rows = stmt.stagedBatches.all() as { seq: number; body: string }[];
    const last = rows.at(-1);
    if (!last) {
      this.#stuck = new Map();
      return;
    }
    // All rows in one savepoint first (the usual case: each row is good); only if one fails, again
    // row by row, each in a savepoint of its own, so one bad row stops none of the others.
    this.#foldAll ??= this.#ctx.db.transaction((texts: string[]) => {
      for (const text of texts) this.#insertStaged(text);
    });
    try {
      this.#foldAll(rows.map((r) => r.body));
      stmt.clearStaged.run(last.seq);
      this.#stuck = new Map();
      return;
    } catch (error) {
      this.#rethrowIfNotTheRow(error);
      // One of them cannot be folded: find which, below. The message numbers counted in memory
      // were rolled back with it, so they are read again.
      this.#ctx.forgetSeqs();
    }
    const stuck = new Map<number, string>();
    for (const row of rows) {
      try {
        this.#foldRow(row.body);
      } catch (error) {
        this.#rethrowIfNotTheRow(error);
        this.#ctx.forgetSeqs();
        stuck.set(row.seq, (error as Error).message);
      }
    }
    if (stuck.size === 0) stmt.clearStaged.run(last.seq);
    else for (const row of rows) if (!stuck.has(row.seq)) stmt.deleteStaged.run(row.seq);
    this.#stuck = stuck;
  }

  /**
   * A fold failure that is not the row's own (a full disk, an I/O error, a lock, or SQLite rolling
   * back the whole transaction) ends the write it happens in: going on would commit what follows
   * outside the transaction, and a good row would be called damaged.
   */
  #rethrowIfNotTheRow(error: unknown): void {
    const code = (error as { code?: string }).code ?? '';
    if (
      !this.#ctx.db.inTransaction ||
      /^SQLITE_(FULL|IOERR|NOMEM|BUSY|LOCKED|READONLY|CORRUPT|NOTADB|CANTOPEN)/.test(code)
    )
      throw error;
  }

  /** One staged batch into batches and calls (a savepoint: all of it or nothing). */
  #foldRow(body: string): void {
    this.#foldOne ??= this.#ctx.db.transaction((text: string) => this.#insertStaged(text));
    this.#foldOne(body);
  }

  #insertStaged(body: string): void {
    this.#foldBatch(JSON.parse(body) as StagedBatch);
  }
}
