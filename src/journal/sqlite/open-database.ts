import path from 'node:path';
import type Database from 'better-sqlite3';
import { JournalError } from '../journal-error.js';
import { makeDirs } from '../make-dirs.js';
import { openSqlite } from '../open-sqlite.js';
import { ForeignStateError, prepareOwnDatabase, tightenOwnDatabase } from '../own-state-files.js';
import { migrate } from '../schema.js';
import { explainSqliteError } from './explain-sqlite-error.js';

/**
 * The journal's file made ready before SQLite opens it: its folder made, it and SQLite's side
 * files this user's own (nothing for ':memory:').
 */
export function prepareJournalFile(file: string): void {
  if (file === ':memory:') return;
  try {
    makeDirs(path.dirname(file));
    // The journal holds file contents the tools read (some from 0600 files): it and SQLite's
    // side files are this user's and readable by them only, in a folder nobody else owns.
    prepareOwnDatabase(file, 'the journal');
  } catch (error) {
    if (error instanceof ForeignStateError) throw new JournalError(error.message);
    throw new JournalError(
      `cannot create the journal ${file}: ${(error as Error).message}; use --journal FILE in a writable directory, or --no-journal`,
    );
  }
}

/**
 * Opens the journal's database: WAL with `synchronous = NORMAL`, checkpoints left to the journal,
 * foreign keys on, the schema migrated and read once, the file then closed to other users. A
 * database that cannot be opened is closed again; its error explained (JournalError).
 */
export function openDatabase(file: string, busyTimeoutMs = 5000): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = openSqlite(file);
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // The schema's own SQL never calls functions with side effects (hostile review of issue #31).
    db.pragma('trusted_schema = OFF');
    refuseForeignObjects(db, file);
    switchToWal(db, Date.now() + busyTimeoutMs);
    // Commits reach the WAL file (a process crash loses nothing); fsyncs are asked for by sync().
    db.pragma('synchronous = NORMAL');
    // Checkpoints (which fsync) are run off the reply's path, after enough commits (connection.ts).
    db.pragma('wal_autocheckpoint = 0');
    db.pragma('foreign_keys = ON');
    migrate(db);
    // Touch the file's header and schema now, so a damaged file fails here, before any batch.
    db.prepare('SELECT count(*) FROM batches').get();
    // toolgate's journal, as SQLite just read it: now closed to other users.
    if (file !== ':memory:') tightenOwnDatabase(file);
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof JournalError) throw error;
    throw explainSqliteError(error, file);
  }
}

/**
 * Switches a file to WAL. Several processes creating the journal at once can get SQLITE_BUSY here
 * without SQLite waiting its busy timeout (the switch needs an exclusive lock, and SQLite does not
 * wait where waiting could deadlock), so it is retried until the deadline; once one process has
 * switched it, the others find WAL already set.
 */
function switchToWal(db: Database.Database, deadline: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, Math.min(5 * attempt, 50)); // opening is synchronous: a short blocking pause
    }
  }
}

/**
 * toolgate's journal has no triggers and no views. One found there was put in by someone else (a
 * journal committed to a repository, or planted by a command): a trigger could rewrite the calls
 * and results later runs record, or turn a running call back to planned so recovery runs it
 * again. Refused before anything is written (hostile review of issue #31).
 */
function refuseForeignObjects(db: Database.Database, file: string): void {
  const foreign = db
    .prepare("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') ORDER BY name")
    .all() as { type: string; name: string }[];
  if (foreign.length === 0) return;
  const named = foreign.map((o) => `${o.type} ${JSON.stringify(o.name)}`).join(', ');
  throw new JournalError(
    `move ${file} aside (or use --journal FILE, or --no-journal): it holds ${named}, which toolgate never makes; someone else changed this journal, and its history cannot be trusted`,
  );
}
