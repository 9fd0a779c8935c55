import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { PostgresJournal } from '../../src/journal/postgres/postgres-journal.js';
import { SyncPg } from '../../src/journal/postgres/sync-pg.js';
import { createToolgate } from '../../src/toolgate.js';
import { type PgServer, startPostgres } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * A batch whose first commit the server did not answer in time, which then landed after all
 * (review lead H1, issue #17 §2). Commits are held up for real: with `synchronous_standby_names`
 * naming a standby that does not exist, every COMMIT is written locally and then waits for it.
 * The model was told the batch did not run, so it must never run: the process marks it given up,
 * and whoever next meets the batch (a worker claiming it, a read of it, a listing of incomplete
 * batches or of questions) settles it as never run.
 */
let server: PgServer;
beforeAll(() => {
  server = startPostgres();
}, 60_000);
afterAll(() => server?.stop());

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await sleep(50);
  }
}

/** Runs one write_file while commits are held, releases them, and waits for the batch to land. */
async function landGivenUpBatch(asks: boolean) {
  const root = makeTempDir('toolgate-given-up-');
  const url = server.createDatabase();
  const admin = SyncPg.connect(server.url(), 20_000);
  const raw = SyncPg.connect(url, 20_000);
  const journal = PostgresJournal.open(url, { timeoutMs: 1500 });
  const holdCommits = (on: boolean) => {
    admin.query(
      on
        ? "ALTER SYSTEM SET synchronous_standby_names = 'toolgate_nobody'"
        : 'ALTER SYSTEM RESET synchronous_standby_names',
    );
    admin.query('SELECT pg_reload_conf()');
  };
  try {
    holdCommits(true);
    await sleep(300); // the server's processes read the new setting
    const gate = createToolgate({
      roots: [root],
      baseDir: root,
      journal,
      approver: approveAll,
      config: parseConfigText(asks ? '' : '[tools.approval]\nallowlist = ["write_file"]\n', 'toolgate.toml'),
      lease: { worker: 'first', ttlMs: 500 },
    });
    const [result] = await gate.execute([
      { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
    ]);
    holdCommits(false);
    // The held commit lands once the server stops waiting for the standby.
    const landed = () => raw.query<{ id: string; status: string }>('SELECT id, status FROM batches').rows;
    await until(() => landed().length === 1, 15_000);
    const [batch] = landed();
    expect(batch?.status).toBe(asks ? 'awaiting_approval' : 'open');
    await sleep(700); // its lease runs out
    return {
      root,
      url,
      result,
      id: batch?.id as string,
      written: () => existsSync(path.join(root, 'x.txt')),
    };
  } finally {
    holdCommits(false);
    admin.close();
    raw.close();
    journal.close();
  }
}

describe('a batch given up on, whose first commit lands later, never runs', () => {
  for (const meets of ['a worker claiming it', 'a read of it', 'a listing of incomplete batches'] as const)
    it(`the model is told it did not run (no "a worker may still run it"); ${meets} settles it as never run`, async () => {
      const { url, result, id, written } = await landGivenUpBatch(false);
      expect(result?.ok).toBe(false);
      expect(result?.content).toMatch(/not executed: PostgreSQL did not answer/);
      expect(result?.content).not.toMatch(/a worker may still run/);
      const other = PostgresJournal.open(url);
      try {
        if (meets === 'a worker claiming it')
          expect(other.claimExpiredBatch({ worker: 'second', ttlMs: 60_000 })).toBeUndefined();
        else if (meets === 'a read of it') expect(other.batch(id)?.status).toBe('discarded');
        else expect(other.incompleteBatches()).toEqual([]);
        const settled = other.batch(id);
        expect(settled?.status).toBe('discarded');
        expect(settled?.calls.map((c) => c.status)).toEqual(['not_run']);
        expect(settled?.calls[0]?.result?.content).toMatch(/gave up on this batch/);
        expect(other.claimExpiredBatch({ worker: 'third', ttlMs: 60_000 })).toBeUndefined();
        expect(written()).toBe(false);
      } finally {
        other.close();
      }
    }, 60_000);

  it('one that was to ask a person first is never asked about: the list of questions does not have it', async () => {
    const { url, id, written } = await landGivenUpBatch(true);
    const other = PostgresJournal.open(url);
    try {
      expect(other.pendingApprovals()).toEqual([]);
      expect(other.batch(id)?.status).toBe('discarded');
      expect(written()).toBe(false);
    } finally {
      other.close();
    }
  }, 60_000);
});
