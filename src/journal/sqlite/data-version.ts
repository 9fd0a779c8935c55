import type { WalIndexHeader } from '../wal-index-header.js';
import type { Statements } from './statements.js';

/**
 * Whether another connection committed since a cached read (SQLite's data_version), asked as
 * cheaply as can be: once per planning moment (`atOneMoment`), and without SQLite at all while the
 * WAL-index header has not changed by a byte (wal-index-header.ts).
 */
export class DataVersion {
  readonly #stmt: Statements;
  readonly #walIndex: WalIndexHeader | undefined;
  /** Inside atOneMoment: the data_version read first (others' commits after it are after the moment). */
  #moment: { version?: number } | undefined;
  /** The last data_version asked for, with the WAL-index header as it was just before asking. */
  #lastAsked: { header: Buffer; version: number } | undefined;

  constructor(stmt: Statements, walIndex: WalIndexHeader | undefined) {
    this.#stmt = stmt;
    this.#walIndex = walIndex;
  }

  atOneMoment<T>(fn: () => T): T {
    if (this.#moment) return fn();
    this.#moment = {};
    try {
      return fn();
    } finally {
      this.#moment = undefined;
    }
  }

  /** Moves when another connection commits (not for this one's own commits). */
  current(): number {
    const moment = this.#moment;
    if (moment?.version !== undefined) return moment.version;
    const version = this.#fresh();
    if (moment) moment.version = version;
    return version;
  }

  /**
   * data_version now. Where the WAL-index header has not changed by a byte since it was read just
   * before the last query, nobody has committed since, and that query's answer stands (one pread;
   * see wal-index-header.ts). Otherwise SQLite is asked.
   */
  #fresh(): number {
    const last = this.#lastAsked;
    if (last && this.#walIndex?.unchangedSince(last.header)) return last.version;
    const header = this.#walIndex?.read(); // before the query: a commit in between shows as a change
    const version = this.#stmt.dataVersion.get() as number;
    this.#lastAsked = header ? { header, version } : undefined;
    return version;
  }
}
