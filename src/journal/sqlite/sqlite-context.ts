import type Database from 'better-sqlite3';
import type { PendingReads } from '../common/pending-reads.js';
import type { MessageRecord } from '../journal-types.js';
import type { Seals } from './seals.js';
import type { Statements } from './statements.js';

/**
 * What every part of the SQLite journal works through (`SqliteJournal` makes one per store, a
 * `SqliteConnection`): one connection, its prepared statements, one write path, one owner. Each
 * part depends on this, not on the whole class, so one transaction can still span parts.
 */
export interface SqliteContext {
  /** Where the journal is, for messages: its file as given, or ':memory:'. */
  readonly location: string;
  readonly db: Database.Database;
  /** Prepared once when the journal opens (statements.ts). */
  readonly stmt: Statements;
  /** This process, recorded as the owner of each batch it begins. */
  readonly owner: string;
  /** Open batches' sessions (undefined: no messages), so a result needs no lookup of its batch. */
  readonly sessionOf: Map<string, string | undefined>;
  /** This user's seal key, for the rows that must prove they were made here (seals.ts). */
  readonly seals: Seals;
  /** Read-cache changes waiting for the next commit, which carries them first. */
  readonly pendingReads: PendingReads;
  /** Once the journal is closed: nothing is staged or checkpointed any more. */
  readonly closed: boolean;
  /**
   * Runs one write transaction, turning SQLite errors into JournalErrors. Batches this process
   * staged are folded first, so whatever it writes next lands after them (messages keep their order).
   */
  write<T>(fn: () => T): T;
  /** One write transaction; with `fold`, every staged batch (any process's) is folded in it first. */
  commit<T>(fn: () => T, fold: boolean): T;
  /**
   * Before reading batches, calls or messages: none of them is still staged, here or by a process
   * that died. `strict`: a fold that fails throws (a reader that must not miss anything).
   */
  foldForRead(strict?: boolean): void;
  /** Inside a write: appends a message; `json` is its content already serialized (to serialize a result once). */
  message(
    session: string,
    role: MessageRecord['role'],
    content: unknown,
    batchId: string | null,
    callId: string | null,
    json?: string,
  ): void;
  /** Message numbers counted in memory were rolled back (a savepoint undone): read them again. */
  forgetSeqs(): void;
}
