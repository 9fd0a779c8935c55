import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/journal.js';
import { JournalError } from '../../src/journal/journal.js';
import { PostgresJournal, redactUrl } from '../../src/journal/postgres/postgres-journal.js';
import { type PgServer, startPostgres } from '../helpers/postgres.js';
import { journalConformance, streamingConformance } from './journal-conformance.js';

/**
 * The PostgreSQL journal (issue #17 §1) against a real server started for this file: the same
 * conformance suite as SQLite, then what is PostgreSQL's own (URLs, errors, several processes).
 */
let server: PgServer;
const open: Journal[] = [];
beforeAll(() => {
  server = startPostgres();
}, 60_000);
afterAll(() => {
  for (const j of open.splice(0)) j.close();
  server?.stop();
});

const postgres = () => {
  const url = server.createDatabase();
  const journal = PostgresJournal.open(url);
  open.push(journal);
  return {
    journal,
    reopen: () => {
      const again = PostgresJournal.open(url);
      open.push(again);
      return again;
    },
  };
};
journalConformance('PostgreSQL', postgres);
streamingConformance('PostgreSQL', postgres);

describe('PostgresJournal', () => {
  it('commits are durable on the server (synchronous_commit on, fsync on) and the schema is versioned', () => {
    const { journal } = postgres();
    expect((journal as PostgresJournal).settings()).toEqual({
      synchronousCommit: 'on',
      fsync: 'on',
      schemaVersion: PostgresJournal.schemaVersion,
    });
  });

  it('a password never shows in the location or in an error', () => {
    expect(redactUrl('postgres://u:hunter2@db.example/x')).toBe('postgres://u:***@db.example/x');
    const bad = `postgres://toolgate:hunter2@localhost/nosuchdb?host=${encodeURIComponent(server.dir)}`;
    let caught: unknown;
    try {
      PostgresJournal.open(bad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(JournalError);
    expect(String((caught as Error).message)).toMatch(/does not exist .*createdb/);
    expect(String((caught as Error).message)).not.toContain('hunter2');
  });

  it('a server that is not there is a clear JournalError', () => {
    expect(() => PostgresJournal.open('postgres://toolgate@localhost/x?host=/nonexistent-dir')).toThrow(
      /cannot reach the PostgreSQL journal/,
    );
  });

  it('two connections appending to one session get consecutive message numbers, none lost', () => {
    const { journal, reopen } = postgres();
    const other = reopen();
    for (let i = 0; i < 20; i++) {
      (i % 2 ? other : journal).appendMessage('shared', 'user', { n: i });
    }
    const seqs = journal.messages('shared').map((m) => m.seq);
    expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
