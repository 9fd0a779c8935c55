import { existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Journal, JournalError } from '../journal/journal.js';
import { STATE_DIR } from '../journal/own-state-files.js';
import { PostgresJournal } from '../journal/postgres/postgres-journal.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import { redactUrl, secretInUrl } from '../output/redact-url.js';
import type { Setup } from './resolve-setup.js';
import { shellWord } from './shell-word.js';
import { UsageError } from './usage-error.js';

/** A PostgreSQL URL, as `--journal` and `[journal] url` take one. */
export function isDatabaseUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location);
}

/**
 * DESIGN §2.2: `--journal FILE|URL`, else `[journal] url`, else `.toolgate/journal.db` under the
 * first root. Only the default location's folder is made: a file named with `--journal` must be in
 * a folder that exists, or a typo would quietly make folders and a journal nobody looks at.
 */
export function journalPath(setup: Setup, option: string | undefined, cwd = process.cwd()): string {
  if (option) {
    if (isDatabaseUrl(option)) return option;
    const file = path.resolve(cwd, option);
    refuseMissingFolder(option, path.dirname(file));
    return file;
  }
  if (setup.config.journal.url) return setup.config.journal.url;
  const firstRoot = path.resolve(setup.baseDir, setup.roots[0] ?? '.');
  return path.join(firstRoot, STATE_DIR, 'journal.db');
}

function refuseMissingFolder(option: string, dir: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return; // unreadable: opening it says why
    throw new UsageError(
      `--journal ${option}: the folder ${dir} does not exist; check the path, or create the folder first (mkdir -p ${shellWord(dir)})`,
    );
  }
  if (!isDir) throw new UsageError(`--journal ${option}: ${dir} is not a folder; check the path`);
}

/**
 * Opens the journal or stops with a clear message (exit 2): nothing runs without it. A journal,
 * its side files or its folder of another user's is refused (SqliteJournal.open, own-state-files.ts).
 * In toolgate's own `.toolgate/` folder (kept 0700) it also leaves a `.gitignore`, so the state
 * never shows up in `git status`.
 */
export function openJournalOrStop(file: string): Journal {
  // A password in the URL (`--journal`, `[journal] url`) would be in the process list, in messages
  // and wherever the location is shown (issue #30 §9): refused before any connection is tried.
  const secret = isDatabaseUrl(file) ? secretInUrl(file) : undefined;
  if (secret)
    throw new UsageError(
      `give the journal a URL without a password (${redactUrl(file)}): put the password in PGPASSWORD (or ~/.pgpass); this URL holds ${secret}`,
    );
  let journal: Journal;
  try {
    journal = isDatabaseUrl(file) ? PostgresJournal.open(file) : SqliteJournal.open(file);
  } catch (error) {
    if (error instanceof JournalError) throw new UsageError(`${error.message}`);
    throw error;
  }
  if (isDatabaseUrl(file)) return journal;
  // toolgate's own folder was checked (this user's, made 0700) before the journal was opened.
  const dir = path.dirname(file);
  if (path.basename(dir) !== STATE_DIR) return journal;
  if (!existsSync(path.join(dir, '.gitignore'))) {
    try {
      writeFileSync(
        path.join(dir, '.gitignore'),
        '# toolgate state (journal): not for version control\n*\n',
        {
          flag: 'wx',
          mode: 0o600,
        },
      );
    } catch {
      // Another process wrote it first, or the folder is read-only: neither stops the journal.
    }
  }
  return journal;
}

/**
 * For commands that only look (journal list/show, recover): an existing journal, or undefined when
 * there is none yet. Looking never creates `.toolgate/` in a folder that has none.
 */
export function openExistingJournal(file: string): Journal | undefined {
  if (!isDatabaseUrl(file) && !existsSync(file)) return undefined;
  return openJournalOrStop(file);
}
