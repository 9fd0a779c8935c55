import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';

/**
 * Group commit for a WAL-mode SQLite file whose commits are written without an fsync
 * (`synchronous = NORMAL`: a commit survives a process crash as soon as it returns, since it is in
 * the WAL file, but not yet a power loss). `sync()` resolves once everything committed before it
 * was called is on disk: one fdatasync of the WAL, in the thread pool (the event loop keeps serving
 * other sessions), shared by every caller that asked while it was pending.
 *
 * fdatasync(2) flushes the file's data and size (the inode), whichever descriptor wrote it, so a descriptor of our own
 * on the `-wal` file covers SQLite's writes and other processes' too. The WAL is never deleted
 * while a connection (ours) is open; when SQLite restarts it after a checkpoint, it rewrites the
 * same file, having synced it and the database first.
 */
export class WalSync {
  readonly #walFile: string;
  #fd: number | undefined;
  /** The fsync under way: it may have started before the latest commit, so it cannot serve it. */
  #running: Promise<void> | undefined;
  /** The fsync that starts when the running one ends: it serves everyone who asked meanwhile. */
  #queued: Promise<void> | undefined;

  constructor(databaseFile: string) {
    this.#walFile = `${databaseFile}-wal`;
  }

  sync(): Promise<void> {
    if (!this.#running) {
      this.#running = this.#fsync().finally(() => {
        this.#running = undefined;
      });
      return this.#running;
    }
    this.#queued ??= this.#running
      .catch(() => undefined) // its failure is its own callers'; the next fsync is a new attempt
      .then(() => {
        this.#queued = undefined;
        return this.sync();
      });
    return this.#queued;
  }

  /** An fsync is under way (a caller now would wait for the next one). */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Synchronously (at close, or with nobody to share with): what was committed reaches the disk. */
  syncNow(): void {
    fdatasyncSync(this.#descriptor());
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #fsync(): Promise<void> {
    return new Promise((resolve, reject) => {
      let fd: number;
      try {
        fd = this.#descriptor();
      } catch (error) {
        reject(error);
        return;
      }
      fdatasync(fd, (error) => (error ? reject(error) : resolve()));
    });
  }

  /**
   * Opened on first use (the WAL exists once the database has been written in WAL mode). The
   * directory is synced once too, so the WAL's own name survives a power loss.
   */
  #descriptor(): number {
    if (this.#fd !== undefined) return this.#fd;
    const fd = openSync(this.#walFile, 'r');
    const dir = openSync(path.dirname(this.#walFile), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    this.#fd = fd;
    return fd;
  }
}
