import type { PgResult, PgStatement } from './sync-pg.js';

/**
 * What every part of the PostgreSQL journal works through (`PostgresJournal` makes one per store):
 * one connection, one owner, one write path. Each part depends on this, not on the whole class.
 */
export interface PgContext {
  /** Where the journal is, for messages: the URL without its password. */
  readonly location: string;
  /** This process, recorded as the owner of each batch it begins. */
  readonly owner: string;
  /**
   * The session of each batch begun here (undefined: its messages are not kept), so a result's
   * `tool` message needs no look-up; forgotten once the batch is complete or settled.
   */
  readonly sessionOf: Map<string, string | undefined>;
  /** One read's rows; errors explained (JournalError). */
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): R[];
  /** One write transaction (pending read-cache changes first), in one round trip; errors explained. */
  write(statements: PgStatement[]): PgResult[];
  /** One transaction of exactly these statements, its errors as thrown (settling tells its guard apart). */
  transaction(statements: PgStatement[]): PgResult[];
}

/** The statuses of a batch that is not finished: open, or waiting for a person. */
export const INCOMPLETE = "('open', 'awaiting_approval')";
/** The server's clock in ms: leases are judged by one clock, whichever machine a worker is on. */
export const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
