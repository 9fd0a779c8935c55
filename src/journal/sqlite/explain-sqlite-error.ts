import { JournalError } from '../journal-error.js';

/** Turns SQLite's error codes into what a person can act on. */
export function explainSqliteError(error: unknown, file: string): JournalError {
  if (error instanceof JournalError) return error; // already says what is wrong (thrown inside a write)
  const code = (error as { code?: string }).code ?? '';
  const message = (error as Error).message;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new JournalError(
      `the journal ${file} is locked by another process (${message}); retry when it is free`,
    );
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new JournalError(
      `the journal ${file} is damaged or not a toolgate database (${message}); move it aside, or use --journal FILE or --no-journal`,
    );
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_PERM')) {
    return new JournalError(
      `the journal ${file} cannot be written (${message}); check the file and directory permissions, or use --journal FILE`,
    );
  }
  if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) {
    return new JournalError(
      `the journal ${file} could not be written: the disk is full or failing (${message}); free space and retry`,
    );
  }
  return new JournalError(`the journal ${file} failed: ${message}`);
}
