import path from 'node:path';
import { JournalError } from '../journal/journal.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import type { Setup } from './resolve-setup.js';
import { UsageError } from './usage-error.js';

/** DESIGN §2.2: `--journal FILE`, default `.toolgate/journal.db` under the first root. */
export function journalPath(setup: Setup, option: string | undefined, cwd = process.cwd()): string {
  if (option) return path.resolve(cwd, option);
  const firstRoot = path.resolve(setup.baseDir, setup.roots[0] ?? '.');
  return path.join(firstRoot, '.toolgate', 'journal.db');
}

/** Opens the journal or stops with a clear message (exit 2): nothing runs without it. */
export function openJournalOrStop(file: string): SqliteJournal {
  try {
    return SqliteJournal.open(file);
  } catch (error) {
    if (error instanceof JournalError) throw new UsageError(`${error.message}`);
    throw error;
  }
}
