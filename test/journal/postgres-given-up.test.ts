import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load-config.js';
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
 * and a worker that would claim it settles it as never run instead.
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

describe('a batch given up on, whose first commit lands later', () => {
  it('is never run: the model is told it did not run (no "a worker may still run it"), and the claim that finds it settles it as never run', async () => {
    const root = makeTempDir('toolgate-given-up-');
    const url = server.createDatabase();
    const admin = SyncPg.connect(server.url(), 20_000);
    const journal = PostgresJournal.open(url, { timeoutMs: 1500 });
    const other = PostgresJournal.open(url);
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
        config: parseConfigText('[tools.approval]\nallowlist = ["write_file"]\n', 'toolgate.toml'),
        lease: { worker: 'first', ttlMs: 500 },
      });
      const [result] = await gate.execute([
        { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
      ]);
      expect(result?.ok).toBe(false);
      expect(result?.content).toMatch(/not executed: PostgreSQL did not answer/);
      expect(result?.content).not.toMatch(/a worker may still run/);
      expect(existsSync(path.join(root, 'x.txt'))).toBe(false);

      // The held commit lands once the server stops waiting for the standby.
      holdCommits(false);
      await until(() => other.incompleteBatches().length === 1, 15_000);
      const [late] = other.incompleteBatches();
      await sleep(700); // its lease runs out
      expect(other.claimExpiredBatch({ worker: 'second', ttlMs: 60_000 })).toBeUndefined();
      const settled = other.batch(late?.id as string);
      expect(settled?.status).toBe('discarded');
      expect(settled?.calls.map((c) => c.status)).toEqual(['not_run']);
      expect(settled?.calls[0]?.result?.content).toMatch(/gave up on this batch/);
      expect(other.incompleteBatches()).toEqual([]);
      expect(existsSync(path.join(root, 'x.txt'))).toBe(false);
    } finally {
      holdCommits(false);
      admin.close();
      journal.close();
      other.close();
    }
  }, 60_000);
});
