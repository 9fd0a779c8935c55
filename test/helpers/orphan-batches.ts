import Database from 'better-sqlite3';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';

/**
 * Batches a test journaled in its own (still running) process look like a live toolgate's, which
 * recovery rightly leaves alone. This makes them what the test means: left by a process that died.
 */
export function orphanBatches(file: string): void {
  // Batches begun without a lease or a question may still be staged rows: opening the journal folds them.
  SqliteJournal.open(file).close();
  const db = new Database(file);
  try {
    db.prepare("UPDATE batches SET owner = 'a-host-that-is-gone:1:0'").run();
  } finally {
    db.close();
  }
}
