import {
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  statfsSync,
  writeSync,
} from 'node:fs';
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
/** Free space a write-ahead of the WAL leaves on its file system, at least. */
const FREE_AT_LEAST = 256 << 20;

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

  /** The WAL file's size now. */
  size(): number {
    return fstatSync(this.#descriptor()).size;
  }

  /**
   * Writes zeros from the file's end up to `target` bytes. Only under SQLite's write lock (no
   * commit can write frames meanwhile), and only past the end, where no frame of the log is: SQLite
   * overwrites them as the log grows, and reads a zero frame as the end of the log (its salt does
   * not match). An fdatasync of a WAL written in place need not commit the file's new size to the
   * file system's journal, which an append does each time (BENCHMARKS.md, session 13).
   */
  extendTo(target: number): void {
    // Never the disk's last room: that is for the journal's own rows and the tools' files.
    const { bavail, bsize } = statfsSync(path.dirname(this.#walFile));
    if (bavail * bsize < FREE_AT_LEAST + target) return;
    const fd = openSync(this.#walFile, constants.O_WRONLY | constants.O_NOFOLLOW);
    const from = fstatSync(fd).size;
    try {
      const zeros = Buffer.alloc(Math.min(1 << 20, Math.max(0, target - from)));
      for (let at = from; at < target; ) {
        const n = writeSync(fd, zeros, 0, Math.min(zeros.length, target - at), at);
        if (n <= 0) break;
        at += n;
      }
    } catch (error) {
      ftruncateSync(fd, from); // full after all (or a file size limit): the room goes back
      throw error;
    } finally {
      closeSync(fd); // SQLite holds no lock on the -wal file (its locks are on the database and -shm)
    }
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
