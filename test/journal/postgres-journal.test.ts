import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/journal.js';
import { JournalError } from '../../src/journal/journal.js';
import { PostgresJournal, redactUrl } from '../../src/journal/postgres/postgres-journal.js';
import { SyncPg } from '../../src/journal/postgres/sync-pg.js';
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

  it("Property: any text (quotes, backslashes, $1, E'…', semicolons, any Unicode) written into a transaction comes back exactly; nothing in it runs as SQL", () => {
    const pg = SyncPg.connect(server.createDatabase());
    try {
      pg.query('CREATE TABLE canary (v TEXT)');
      const nasty = fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 30 }),
        fc.string({
          unit: fc.constantFrom("'", '\\', '$', '1', ';', 'E', '"', ' ', '-', '/', '*', '\n'),
          maxLength: 30,
        }),
        fc.constantFrom("'); DROP TABLE canary; --", "\\'; DROP TABLE canary; --", '$1', "E'\\x27'"),
      );
      fc.assert(
        fc.property(nasty, fc.integer(), (text, n) => {
          fc.pre(!text.includes('\0'));
          const [row] = pg.transaction([
            { text: 'INSERT INTO canary (v) VALUES ($1) RETURNING v, $2::bigint AS n', values: [text, n] },
          ]);
          expect(row?.rows[0]).toEqual({ v: text, n });
        }),
        { numRuns: 300 },
      );
      expect(pg.query<{ n: number }>('SELECT count(*) AS n FROM canary').rows[0]?.n).toBeGreaterThanOrEqual(
        300,
      );
      // NUL cannot be stored: it is kept as U+FFFD; a negative number stays one number (1-(-7), not 1--7).
      expect(pg.transaction([{ text: 'SELECT $1::text AS v', values: ['a\0b'] }])[0]?.rows[0]).toEqual({
        v: 'a\uFFFDb',
      });
      expect(pg.transaction([{ text: 'SELECT 1-$1 AS v, 2 AS w', values: [-7] }])[0]?.rows[0]).toEqual({
        v: 8,
        w: 2,
      });
    } finally {
      pg.close();
    }
  });

  it('after a request given up on (its connection dropped), every later answer is its own: never one meant for another request', () => {
    // 100 ms for an answer: the server gives up on a statement at about the same moment, so the
    // dropped connection's thread may still answer while the next connection already waits.
    // Making a connection is not what is tested: on a loaded machine a worker thread and a TCP
    // connection may take longer than 100 ms (fifty tries in a row did, beside two CPU hogs), so
    // connecting has its own, generous bound.
    const pg = SyncPg.connect(server.createDatabase(), 100, 30_000);
    try {
      for (let round = 0; round < 8; round++) {
        expect(() => pg.query('SELECT pg_sleep(0.12)')).toThrow();
        for (let n = 0; n < 20; n++) {
          const answer = (() => {
            try {
              return pg.query<{ n: number }>('SELECT $1::int AS n', [n]).rows;
            } catch (error) {
              return String(error);
            }
          })();
          // An error is allowed (a fresh connection may be slow to make); a wrong answer never.
          if (typeof answer !== 'string') expect(answer).toEqual([{ n }]);
        }
      }
    } finally {
      pg.close();
    }
  });

  it('a worker waiting for an answer wakes when another connection commits one (LISTEN/NOTIFY), not at its next look', async () => {
    const { journal, reopen } = postgres();
    const other = reopen();
    const request = {
      callId: 'c0',
      toolName: 't',
      summary: 's',
      risk: 'medium' as const,
      locations: [],
      reason: 'r',
      rule: 'x',
    };
    const id = journal.beginBatch('S', [{ id: 'c0', name: 't', arguments: {} }], {
      plan: [{ index: 0, approval: request }],
    });
    expect(await journal.listening()).toBe(true); // the LISTEN connection is made
    const started = Date.now();
    const waiting = journal.approvalsChanged(new AbortController().signal, 30_000);
    setTimeout(
      () => other.answerApproval({ batchId: id, index: 0, approved: true, preview: 'p', by: 'x' }),
      50,
    );
    await waiting;
    expect(Date.now() - started).toBeLessThan(5_000); // woken by the NOTIFY, not the 30 s fallback
  });

  it('a result holding \\u0000 or a lone surrogate (a model can put them there) does not break listing batches; failures are still counted', () => {
    const { journal } = postgres();
    const id = journal.beginBatch('S', [
      { id: 'c0', name: 'read_file', arguments: { path: 'nope\u0000.txt' } },
    ]);
    journal.markRunning(id, 0);
    journal.recordResult(id, 0, {
      id: 'c0',
      name: 'read_file',
      ok: false,
      content: 'bad \u0000 \ud800 name',
      error: { type: 'NotFound', message: 'nope\u0000' },
      latencyMs: 1,
    });
    journal.finishBatch(id);
    expect(journal.recentBatches(5)).toMatchObject([{ id, calls: 1, failed: 1 }]);
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
