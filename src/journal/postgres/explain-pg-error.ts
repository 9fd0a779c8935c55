import { JournalError } from '../journal-error.js';
import { PgError } from './sync-pg.js';

/** Turns PostgreSQL's errors into what a person can act on. */
export function explainPgError(error: unknown, where: string): JournalError {
  if (error instanceof JournalError) return error;
  const message = (error as Error).message;
  const code = error instanceof PgError ? (error.code ?? '') : '';
  if (code === '28P01' || code === '28000')
    return new JournalError(
      `the PostgreSQL journal ${where} refused the login (${message}); check the user, and the password (PGPASSWORD in the environment)`,
    );
  if (code === '3D000')
    return new JournalError(
      `the PostgreSQL journal ${where} names a database that does not exist (${message}); create it first (createdb)`,
    );
  if (code.startsWith('53'))
    return new JournalError(
      `the PostgreSQL journal ${where} is out of resources (${message}): disk, memory or connections; free them and retry`,
    );
  if (/ECONNREFUSED|ENOENT|ETIMEDOUT|EHOSTUNREACH|getaddrinfo/.test(message))
    return new JournalError(
      `cannot reach the PostgreSQL journal ${where} (${message}); is the server running, and is the URL right?`,
    );
  // No SQLSTATE (the connection itself failed), a connection exception (08…) or a shutdown (57P…):
  // a commit under way may have landed all the same.
  const lost = code === '' || code.startsWith('08') || code.startsWith('57P');
  return new JournalError(`the PostgreSQL journal ${where} failed: ${message}`, { outcomeUnknown: lost });
}
