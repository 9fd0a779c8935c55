import { close, fsync } from 'node:fs';

/** Descriptors held for flushes at most; a writer past it waits (a patch of thousands of new files). */
const MAX_PENDING_FDS = 64;

/**
 * The fsyncs of files a tool has already put in place (docs/DURABILITY.md, "Writes"): a new file's
 * data and its directory entry are flushed in the thread pool while the result goes back, instead
 * of before it. Nothing can be lost that existed before (a new name only). Everything that makes a
 * journal row durable waits for them first — the next side-effecting call, the journal's own fsync
 * and checkpoint (any session of this process) — so the journal never holds, as done, a write whose
 * file is still on its way to the disk.
 */
export class PendingSyncs {
  readonly #running = new Set<Promise<void>>();
  #failures: string[] = [];
  #fds = 0;

  /** Flushes `fds` to disk now, in the thread pool, and closes them after (this owns them from here). */
  start(fds: readonly number[], what: string): void {
    this.#fds += fds.length;
    const flushing = Promise.all(fds.map(syncThenClose)).then(
      () => undefined,
      (error: Error) => {
        this.#failures.push(`"${what}": ${error.message}`);
      },
    );
    this.#running.add(flushing);
    void flushing.finally(() => {
      this.#fds -= fds.length;
      this.#running.delete(flushing);
    });
  }

  /** Nothing is being flushed (no need to wait, not even a turn of the event loop). */
  get idle(): boolean {
    return this.#running.size === 0 && this.#failures.length === 0;
  }

  /** Before starting another flush: waits while too many descriptors are held by running ones. */
  async room(): Promise<void> {
    while (this.#fds >= MAX_PENDING_FDS && this.#running.size > 0) await Promise.race(this.#running);
  }

  /** Resolves once every flush started before the call has ended (a failure is kept for `settle`). */
  async drained(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }

  /**
   * Resolves once every flush started before the call has ended. Rejects, once, when one failed
   * since the last call: the file is in place but may not survive a power loss.
   */
  async settle(): Promise<void> {
    await this.drained();
    if (this.#failures.length === 0) return;
    const failed = this.#failures.splice(0);
    throw new Error(
      `a file written before could not be flushed to disk (${failed.join('; ')}); it is in place but may not survive a power loss: check the disk, then write it again`,
    );
  }
}

/**
 * One for the process: every session (MCP over HTTP runs several on one journal) and every journal
 * in it wait for the same flushes before an fsync of their own.
 */
export const pendingFileSyncs = new PendingSyncs();

function syncThenClose(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fsync(fd, (error) => close(fd, () => (error ? reject(error) : resolve()))),
  );
}
