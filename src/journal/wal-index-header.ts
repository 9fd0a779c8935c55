import { closeSync, constants, openSync, readSync } from 'node:fs';

/** Both copies of the WAL-index header (48 bytes each), at the start of the `-shm` file. */
const HEADER_BYTES = 96;

/**
 * The WAL-index header of a SQLite database in WAL mode (https://sqlite.org/walformat.html §2.1):
 * the first 96 bytes of `<db>-shm`, two copies of a header that every commit, by any connection,
 * rewrites (its change counter, frame count and checksums move). Reading it is one `pread` and no
 * SQLite code, where `PRAGMA data_version` starts a read transaction (lock calls, the pager), which
 * in a server that sleeps between calls costs tens of µs.
 *
 * Used one way only: a header read *before* a `PRAGMA data_version` query and found byte for byte
 * the same later means nobody committed in between, so that query's answer still stands. Any
 * difference, a read cut short or a file that cannot be read means nothing: the query is run.
 * While this connection is open SQLite never replaces the `-shm` file (only the first connection
 * to open a database resets it), so the descriptor kept here is the file SQLite maps.
 */
export class WalIndexHeader {
  #fd: number | undefined;
  #failed = false;

  constructor(private readonly dbFile: string) {}

  readonly #scratch = Buffer.alloc(HEADER_BYTES);

  /** The header as it is now, or undefined when it cannot be read whole. */
  read(): Buffer | undefined {
    return this.#readInto(Buffer.allocUnsafe(HEADER_BYTES));
  }

  /** Whether the header is still exactly `before` (nobody committed since it was read). */
  unchangedSince(before: Buffer): boolean {
    return this.#readInto(this.#scratch)?.equals(before) === true;
  }

  #readInto(header: Buffer): Buffer | undefined {
    if (this.#failed) return undefined;
    try {
      this.#fd ??= openSync(`${this.dbFile}-shm`, constants.O_RDONLY | constants.O_NOFOLLOW);
      return readSync(this.#fd, header, 0, HEADER_BYTES, 0) === HEADER_BYTES ? header : undefined;
    } catch {
      this.#failed = true; // no -shm to read (not WAL, or not ours to open): always ask SQLite
      return undefined;
    }
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}
