import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';

/** Both copies of the WAL-index header (48 bytes each), at the start of the `-shm` file. */
const HEADER_BYTES = 96;

/**
 * One descriptor per `-shm` file, shared by every journal of this process on that file and closed
 * only when the last of them closed (its SQLite connection first): closing any descriptor of a file
 * drops every POSIX lock the process holds on it, SQLite's own for every connection included, and
 * another process could then delete a WAL still in use (review H1). A descriptor whose file was
 * replaced (everyone closed the database, a new -shm was made) is left to its users.
 */
const descriptors = new Map<string, { fd: number; users: number }>();

/**
 * The WAL-index header of a SQLite database in WAL mode (https://sqlite.org/walformat.html §2.1):
 * the first 96 bytes of `<db>-shm`, two copies of a header that every commit, by any connection,
 * rewrites (its change counter, frame count and checksums move). Reading it is one `pread` and no
 * SQLite code, where `PRAGMA data_version` starts a read transaction (lock calls, the pager), which
 * in a server that sleeps between calls costs tens of µs.
 *
 * Used one way only: a header read *before* a `PRAGMA data_version` query and found byte for byte
 * the same later means nobody committed in between, so that query's answer still stands. Any
 * difference, a read cut short, or a file that is no longer the database's (unlinked) means
 * nothing: the query is run.
 */
export class WalIndexHeader {
  readonly #fd: number | undefined;
  #shared: { fd: number; users: number } | undefined;
  readonly #scratch = Buffer.alloc(HEADER_BYTES);

  /** `dbFile` is open in WAL mode already (its -shm exists); SQLite uses the real path's -shm (review L1). */
  constructor(dbFile: string) {
    try {
      const shm = `${realpathSync(dbFile)}-shm`;
      let shared = descriptors.get(shm);
      // The file at the path now (a database closed by everyone and opened again has a new -shm).
      if (shared === undefined || fstatSync(shared.fd).ino !== statSync(shm).ino) {
        shared = { fd: openSync(shm, constants.O_RDONLY | constants.O_NOFOLLOW), users: 0 };
        descriptors.set(shm, shared); // the old one stays open while its users are: closing it could drop live locks
      }
      shared.users += 1;
      this.#shared = shared;
      this.#fd = shared.fd;
    } catch {
      this.#fd = undefined; // no -shm to read: always ask SQLite
    }
  }

  /** This journal is done (its SQLite connection closed): the last user of the descriptor closes it. */
  release(): void {
    const shared = this.#shared;
    this.#shared = undefined; // once per journal, however often it is closed
    if (shared === undefined) return;
    shared.users -= 1;
    if (shared.users > 0) return;
    for (const [shm, entry] of descriptors) if (entry === shared) descriptors.delete(shm);
    try {
      closeSync(shared.fd);
    } catch {
      // already closed: nothing held
    }
  }

  /** The header as it is now, or undefined when it cannot be read whole. */
  read(): Buffer | undefined {
    return this.#readInto(Buffer.allocUnsafe(HEADER_BYTES));
  }

  /**
   * How many bytes of the WAL file the current log uses (its 32-byte header and frames up to
   * mxFrame), from the header's page size and frame count; undefined when the header cannot be
   * read whole, is not initialised, or its two copies differ (a writer is changing it).
   */
  bytesUsed(): number | undefined {
    const h = this.#readInto(this.#scratch);
    if (!h || h[12] !== 1 || !h.subarray(0, 48).equals(h.subarray(48, 96))) return undefined;
    // Native byte order (the -shm is never moved between machines).
    const le = os.endianness() === 'LE';
    const szPage = le ? h.readUInt16LE(14) : h.readUInt16BE(14);
    const mxFrame = le ? h.readUInt32LE(16) : h.readUInt32BE(16);
    const pageSize = szPage === 1 ? 65536 : szPage;
    return 32 + mxFrame * (24 + pageSize);
  }

  /** Whether the header is still exactly `before` (nobody committed since it was read). */
  unchangedSince(before: Buffer): boolean {
    return this.#readInto(this.#scratch)?.equals(before) === true;
  }

  #readInto(header: Buffer): Buffer | undefined {
    if (this.#fd === undefined) return undefined;
    try {
      // While this connection is open SQLite keeps this -shm (only a last close removes it).
      return readSync(this.#fd, header, 0, HEADER_BYTES, 0) === HEADER_BYTES ? header : undefined;
    } catch {
      return undefined;
    }
  }
}
