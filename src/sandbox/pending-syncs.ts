import { close, closeSync, fsync, fsyncSync } from 'node:fs';

/** Descriptors held for flushes at most; past it a file is flushed at once (a patch of thousands of new files). */
const MAX_PENDING_FDS = 64;

interface Failure {
  /** Who wrote the file (a gate's sandbox): only its own next side effect hears of it. */
  owner: object | undefined;
  what: string;
  message: string;
}

/**
 * The fsyncs of files a tool has already put in place (docs/DURABILITY.md, "Writes"): a new file's
 * data and its directory entry are flushed in the thread pool while the result goes back, instead
 * of before it. Nothing can be lost that existed before (a new name only). Everything that makes a
 * journal row durable waits for them first — the next side-effecting call, the journal's own fsync,
 * checkpoint and close (any session of this process) — so the journal never holds, as done, a write
 * whose file is still on its way to the disk.
 */
export class PendingSyncs {
  readonly #running = new Set<Promise<void>>();
  /** The descriptors being flushed now (for flushSync at a journal's close). */
  readonly #open = new Set<number>();
  #failures: Failure[] = [];

  /**
   * Flushes `fds` to disk and closes them (this owns them from here): in the thread pool, or at
   * once when too many are held already. A failure is kept for `owner`'s next `settle`.
   */
  start(fds: readonly number[], what: string, owner?: object): void {
    if (this.#open.size + fds.length > MAX_PENDING_FDS) {
      this.#flushNow(fds, what, owner);
      return;
    }
    for (const fd of fds) this.#open.add(fd);
    const flushing = Promise.all(fds.map((fd) => this.#syncThenClose(fd))).then(
      () => undefined,
      (error: Error) => {
        this.#failures.push({ owner, what, message: error.message });
      },
    );
    this.#running.add(flushing);
    void flushing.finally(() => this.#running.delete(flushing));
  }

  /** Nothing is being flushed and no failure waits to be told (no need to wait, not even a turn). */
  get idle(): boolean {
    return this.#running.size === 0 && this.#failures.length === 0;
  }

  /** Resolves once the flushes running when it was called have ended (a failure is kept for `settle`). */
  async drained(): Promise<void> {
    if (this.#running.size > 0) await Promise.all([...this.#running]);
  }

  /**
   * Resolves once the flushes running when it was called have ended. Rejects, once, when one of
   * `owner`'s failed since its last call: the file is in place but may not survive a power loss.
   * Another owner's failure is left for that owner (it names a file this one need not know of).
   */
  async settle(owner?: object): Promise<void> {
    await this.drained();
    const mine = this.#failures.filter((f) => f.owner === owner);
    if (mine.length === 0) return;
    this.#failures = this.#failures.filter((f) => f.owner !== owner);
    throw new Error(
      `a file written before could not be flushed to disk (${mine.map((f) => `"${f.what}": ${f.message}`).join('; ')}); it is in place but may not survive a power loss: check the disk, then write it again`,
    );
  }

  /**
   * Synchronously, for a journal closing while flushes run (its last fsync must not come first):
   * each descriptor still held is fsynced here too. One the thread pool closed meanwhile fails
   * harmlessly (EBADF), or, reused, gets a needless fsync.
   */
  flushSync(): void {
    for (const fd of this.#open) {
      try {
        fsyncSync(fd);
      } catch {
        // closed meanwhile: its own flush ended
      }
    }
  }

  #flushNow(fds: readonly number[], what: string, owner: object | undefined): void {
    for (const fd of fds) {
      try {
        fsyncSync(fd);
      } catch (error) {
        this.#failures.push({ owner, what, message: (error as Error).message });
      } finally {
        closeSync(fd);
      }
    }
  }

  #syncThenClose(fd: number): Promise<void> {
    return new Promise((resolve, reject) =>
      fsync(fd, (error) => {
        this.#open.delete(fd);
        close(fd, () => (error ? reject(error) : resolve()));
      }),
    );
  }
}

/**
 * One for the process: every session (MCP over HTTP runs several on one journal) and every journal
 * in it wait for the same flushes before an fsync of their own.
 */
export const pendingFileSyncs = new PendingSyncs();
