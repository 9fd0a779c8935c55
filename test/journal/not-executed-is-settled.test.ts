import { existsSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { JournalError } from '../../src/journal/journal.js';
import { explainPgError } from '../../src/journal/postgres/postgres-journal.js';
import { PgError } from '../../src/journal/postgres/sync-pg.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate } from '../../src/toolgate.js';
import { journalWith } from '../helpers/journal-with.js';
import { makeTempDir } from '../helpers/workspace.js';

/** The journal with one method failing, as a full disk or a broken connection would make it. */
function failing(journal: SqliteJournal, method: 'sync' | 'markApproved') {
  const error = new Error('disk I/O error (test)');
  return journalWith(
    journal,
    method === 'sync'
      ? { sync: () => Promise.reject(error) }
      : {
          markApproved: () => {
            throw error;
          },
        },
  );
}

describe('calls the model is told did not run are settled as not run in the journal', () => {
  for (const method of ['sync', 'markApproved'] as const) {
    it(`the journal failing at ${method} before a question: not executed, and no recovery asks again`, async () => {
      const root = makeTempDir('toolgate-notrun-');
      const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
      try {
        const gate = createToolgate({
          roots: [root],
          baseDir: root,
          journal: failing(sqlite, method),
          approver: approveAll,
        });
        const [result] = await gate.execute([
          { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
        ]);
        expect(result?.ok).toBe(false);
        expect(result?.content).toMatch(/not executed: disk I\/O error \(test\)/);
        // Nothing left for `toolgate recover` to ask about and run.
        expect(sqlite.incompleteBatches()).toEqual([]);
        const [summary] = sqlite.recentBatches(1);
        expect(sqlite.batch(summary?.id as string)?.calls.map((c) => c.status)).toEqual(['not_run']);
      } finally {
        sqlite.close();
      }
    });
  }
});

describe('a batch stopped by a failing observer is settled, not completed with calls left unstarted', () => {
  for (const how of ['throws', 'rejects (a promise of another realm)'] as const)
    it(`the caller's observer ${how} on the first result: the second call does not run, and the journal says so`, async () => {
      const root = makeTempDir('toolgate-notrun-');
      const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
      try {
        const gate = createToolgate({ roots: [root], baseDir: root, journal: sqlite, approver: approveAll });
        const results = await gate.execute(
          [
            { id: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } },
            { id: '2', name: 'write_file', arguments: { path: 'b.txt', content: 'b' } },
          ],
          {
            observer: {
              onCallResult: () => {
                if (how === 'throws') throw new Error('observer broke (test)');
                // Not an instance of this realm's Promise: made in another one.
                return runInNewContext('Promise.reject(new Error("observer broke (test)"))') as Promise<void>;
              },
            },
          },
        );
        expect(results.map((r) => r.ok)).toEqual([true, false]);
        const [summary] = sqlite.recentBatches(1);
        const batch = sqlite.batch(summary?.id as string);
        expect(batch?.calls.map((c) => c.status)).toEqual(['done', 'not_run']);
        expect(sqlite.incompleteBatches()).toEqual([]);
      } finally {
        sqlite.close();
      }
    });
});

describe('a halt after the last result leaves the batch complete (review lead L4)', () => {
  it("a store that ignores `finish`, the caller's observer throwing on the last result: every result is in the journal, and the batch is complete, not resumed", async () => {
    const root = makeTempDir('toolgate-notrun-');
    const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
    try {
      // A store written before `finish` existed: it records the result and never completes the batch.
      const journal = journalWith(sqlite, {
        recordResult: (batchId, index, result, status) => {
          sqlite.recordResult(batchId, index, result, status);
          return undefined;
        },
      });
      const gate = createToolgate({ roots: [root], baseDir: root, journal, approver: approveAll });
      const results = await gate.execute(
        [
          { id: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } },
          { id: '2', name: 'write_file', arguments: { path: 'b.txt', content: 'b' } },
        ],
        {
          observer: {
            onCallResult: (result) => {
              if (result.id === '2') throw new Error('observer broke (test)');
            },
          },
        },
      );
      expect(results.map((r) => r.ok)).toEqual([true, true]);
      const [summary] = sqlite.recentBatches(1);
      const batch = sqlite.batch(summary?.id as string);
      expect(batch?.calls.map((c) => c.status)).toEqual(['done', 'done']);
      expect(batch?.status).toBe('complete');
    } finally {
      sqlite.close();
    }
  });
});

describe('a halt at the last result that was not recorded is not a complete batch (second review of L4)', () => {
  it('a store that ignores `finish`, its last recordResult failing: the batch is resumed, the call whose result is missing is outcome unknown, never left running in a complete batch', async () => {
    const root = makeTempDir('toolgate-notrun-');
    const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
    try {
      const journal = journalWith(sqlite, {
        recordResult: (batchId, index, result, status) => {
          if (index === 1) throw new Error('disk full (test)');
          sqlite.recordResult(batchId, index, result, status);
          return undefined;
        },
      });
      const gate = createToolgate({ roots: [root], baseDir: root, journal, approver: approveAll });
      await gate.execute([
        { id: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } },
        { id: '2', name: 'write_file', arguments: { path: 'b.txt', content: 'b' } },
      ]);
      const [summary] = sqlite.recentBatches(1);
      const batch = sqlite.batch(summary?.id as string);
      expect(batch?.status).toBe('resumed');
      expect(batch?.calls.map((c) => c.status)).toEqual(['done', 'unknown']);
    } finally {
      sqlite.close();
    }
  });
});

describe('a call marked running whose fsync then failed did not start: the journal says never run, as the model is told', () => {
  it('write_file allowed without asking, the fsync before it failing: not executed, and not_run in the journal (not "outcome unknown")', async () => {
    const root = makeTempDir('toolgate-notrun-');
    const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
    try {
      const gate = createToolgate({
        roots: [root],
        baseDir: root,
        journal: failing(sqlite, 'sync'),
        config: parseConfigText('[tools.approval]\nallowlist = ["write_file"]\n', 'toolgate.toml'),
      });
      const [result] = await gate.execute([
        { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
      ]);
      expect(result?.content).toMatch(/not executed/);
      expect(existsSync(path.join(root, 'x.txt'))).toBe(false);
      const [summary] = sqlite.recentBatches(1);
      expect(sqlite.batch(summary?.id as string)?.calls.map((c) => c.status)).toEqual(['not_run']);
      expect(sqlite.incompleteBatches()).toEqual([]);
    } finally {
      sqlite.close();
    }
  });
});

describe('a batch whose own first write has an unknown outcome (a server that did not answer)', () => {
  /** The journal with beginBatch failing as given, committing nothing. */
  const beginFails = (journal: SqliteJournal, error: JournalError) =>
    journalWith(journal, {
      beginBatch: () => {
        throw error;
      },
    });

  for (const unknown of [true, false]) {
    it(
      unknown
        ? 'not answered: the model is told the batch may still be recorded and run by a worker later'
        : 'refused (a definite failure): plain "not executed", no such warning',
      async () => {
        const root = makeTempDir('toolgate-notrun-');
        const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
        try {
          const error = new JournalError('PostgreSQL did not answer within 30000 ms (test)', {
            outcomeUnknown: unknown,
          });
          const gate = createToolgate({
            roots: [root],
            baseDir: root,
            journal: beginFails(sqlite, error),
            config: parseConfigText('[tools.approval]\nallowlist = ["write_file"]\n', 'toolgate.toml'),
          });
          const [result] = await gate.execute([
            { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
          ]);
          expect(result?.content).toMatch(/^write_file failed: not executed: PostgreSQL did not answer/);
          if (unknown)
            expect(result?.content).toMatch(
              /the journal did not confirm the batch was not recorded: a worker may still run this call later; see `toolgate journal show [0-9a-f-]+`/,
            );
          else expect(result?.content).not.toMatch(/a worker may still run/);
          expect(existsSync(path.join(root, 'x.txt'))).toBe(false);
        } finally {
          sqlite.close();
        }
      },
    );
  }

  for (const marks of [true, false])
    it(
      marks
        ? 'not answered, with a journal that records the batch as given up: no warning (it can never run), and that batch id is the one given up'
        : 'not answered, and marking it given up fails too: the warning stays',
      async () => {
        const root = makeTempDir('toolgate-notrun-');
        const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
        try {
          const given: string[] = [];
          const journal = journalWith(sqlite, {
            beginBatch: () => {
              throw new JournalError('PostgreSQL did not answer within 30000 ms (test)', {
                outcomeUnknown: true,
              });
            },
            giveUp: (batchId) => {
              if (!marks) throw new JournalError('PostgreSQL did not answer either (test)');
              given.push(batchId);
            },
          });
          const gate = createToolgate({
            roots: [root],
            baseDir: root,
            journal,
            config: parseConfigText('[tools.approval]\nallowlist = ["write_file"]\n', 'toolgate.toml'),
          });
          const [result] = await gate.execute([
            { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
          ]);
          expect(result?.content).toMatch(/^write_file failed: not executed: PostgreSQL did not answer/);
          if (marks) {
            expect(result?.content).not.toMatch(/a worker may still run/);
            expect(given).toHaveLength(1);
            expect(given[0]).toMatch(/^[0-9a-f-]{36}$/);
          } else expect(result?.content).toMatch(/a worker may still run this call later/);
        } finally {
          sqlite.close();
        }
      },
    );

  it('PostgreSQL errors: a lost connection or a shutdown is an unknown outcome; a refusal with its SQLSTATE is not', () => {
    expect(
      explainPgError(new PgError('Connection terminated unexpectedly', undefined), 'db').outcomeUnknown,
    ).toBe(true);
    expect(explainPgError(new PgError('terminating connection', '57P01'), 'db').outcomeUnknown).toBe(true);
    expect(explainPgError(new PgError('connection failure', '08006'), 'db').outcomeUnknown).toBe(true);
    expect(explainPgError(new PgError('duplicate key', '23505'), 'db').outcomeUnknown).toBe(false);
    expect(
      explainPgError(new PgError('canceling statement due to statement timeout', '57014'), 'db')
        .outcomeUnknown,
    ).toBe(false);
  });
});
