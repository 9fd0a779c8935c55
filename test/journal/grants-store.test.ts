import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import type { Grant } from '../../src/core/grant.js';
import type { Journal } from '../../src/journal/journal.js';
import { PostgresJournal } from '../../src/journal/postgres/postgres-journal.js';
import { SyncPg } from '../../src/journal/postgres/sync-pg.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate, type Toolgate } from '../../src/toolgate.js';
import { type PgServer, startPostgres } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #30 §5 on both stores: grants with ids, listed and revoked (a revoke is seen by the next
 * plan of every connection), session grants kept in their session, and rows from before the
 * change (tool-wide) covering nothing after the schema migration, in both dialects.
 */
interface Store {
  journal: Journal;
  reopen: () => Journal;
  /** Runs raw SQL on the store, as an older toolgate (or an attacker with the file) would write it. */
  raw: (sql: string) => void;
  /** Takes the schema back to before `covers`, as a journal made by the previous release. */
  downgrade: () => void;
}

let server: PgServer;
const opened: Journal[] = [];
beforeAll(() => {
  server = startPostgres();
}, 60_000);
afterAll(() => {
  for (const j of opened.splice(0)) j.close();
  server?.stop();
});

const keep = (j: Journal) => {
  opened.push(j);
  return j;
};

const stores: Record<string, () => Store> = {
  SQLite: () => {
    const file = path.join(makeTempDir('toolgate-grants-'), 'journal.db');
    const onFile = (fn: (db: Database.Database) => void) => {
      const db = new Database(file);
      try {
        fn(db);
      } finally {
        db.close();
      }
    };
    return {
      journal: keep(SqliteJournal.open(file)),
      reopen: () => keep(SqliteJournal.open(file)),
      raw: (sql) => onFile((db) => db.exec(sql)),
      downgrade: () =>
        onFile((db) => {
          // Before covers (14) and the seals (15).
          db.exec('ALTER TABLE grants DROP COLUMN seal');
          db.exec('ALTER TABLE approval_answers DROP COLUMN seal');
          db.exec('ALTER TABLE governance_modes DROP COLUMN seal');
          db.exec('ALTER TABLE batches DROP COLUMN seal');
          db.exec('ALTER TABLE grants DROP COLUMN covers');
          db.pragma(`user_version = ${(db.pragma('user_version', { simple: true }) as number) - 2}`);
        }),
    };
  },
  PostgreSQL: () => {
    const url = server.createDatabase();
    const onDb = (fn: (pg: SyncPg) => void) => {
      const pg = SyncPg.connect(url);
      try {
        fn(pg);
      } finally {
        pg.close();
      }
    };
    return {
      journal: keep(PostgresJournal.open(url)),
      reopen: () => keep(PostgresJournal.open(url)),
      raw: (sql) => onDb((pg) => pg.query(sql)),
      downgrade: () =>
        onDb((pg) => {
          pg.query('ALTER TABLE grants DROP COLUMN covers');
          pg.query('UPDATE toolgate_schema SET version = version - 1');
        }),
    };
  },
};

const fileGrant = (file: string, scope: 'session' | 'project', session?: string): Grant => ({
  tool: 'write_file',
  covers: { kind: 'paths', paths: [file], shown: [path.basename(file)] },
  scope,
  ...(session ? { session } : {}),
  createdAt: 1,
});

const config = validateConfig({ tools: { approval: { denylist: [] } } });

async function outcome(gate: Toolgate, name: string, args: Record<string, unknown>) {
  const call = { id: 'x', name, arguments: args };
  await gate.prepare([call]);
  return gate.plan([call])[0]?.disposition.kind;
}

for (const [name, make] of Object.entries(stores)) {
  describe(`issue #30 §5: grants on ${name}`, () => {
    it('every grant has a stable id; list by session or all; a revoke by one connection is seen by the next plan of another (caches included)', () => {
      const { journal, reopen } = make();
      journal.addGrant(fileGrant('/w/a.txt', 'session', 's1'));
      journal.addGrant(fileGrant('/w/b.txt', 'project'));
      journal.addGrant({
        tool: 'web_fetch',
        covers: { kind: 'origin', origin: 'https://docs.rs' },
        scope: 'session',
        session: 's2',
        createdAt: 2,
      });
      const all = journal.allGrants();
      expect(all.map((g) => [g.tool, g.scope, g.session ?? null])).toEqual([
        ['write_file', 'session', 's1'],
        ['write_file', 'project', null],
        ['web_fetch', 'session', 's2'],
      ]);
      const ids = all.map((g) => g.id);
      expect(new Set(ids).size).toBe(3);
      expect(ids.every((id) => Number.isSafeInteger(id) && (id as number) > 0)).toBe(true);
      expect(all[2]?.covers).toEqual({ kind: 'origin', origin: 'https://docs.rs' });
      expect(journal.listGrants('s1').map((g) => g.id)).toEqual([ids[0], ids[1]]);
      expect(journal.listGrants('s2').map((g) => g.id)).toEqual([ids[1], ids[2]]);

      const other = reopen();
      expect(other.allGrants()).toEqual(all); // same ids from another connection
      expect(journal.listGrants('s1')).toHaveLength(2); // cached here now
      expect(other.revokeGrant(ids[1] as number)).toBe(true);
      expect(other.revokeGrant(ids[1] as number)).toBe(false); // gone already
      expect(other.revokeGrant(999_999)).toBe(false);
      expect(journal.listGrants('s1').map((g) => g.id)).toEqual([ids[0]]);
      expect(journal.revokeGrants('s2')).toBe(1);
      expect(other.listGrants('s2')).toEqual([]);
      journal.addGrant(fileGrant('/w/c.txt', 'project'));
      expect(other.revokeGrants()).toBe(2);
      expect(journal.listGrants('s1')).toEqual([]);
      expect(journal.allGrants()).toEqual([]);
    });

    it('through the pipeline: a session grant stays in its session, a project grant reaches every session, a revoke makes the next plan ask', async () => {
      const { journal } = make();
      const root = makeTempDir('toolgate-grants-root-');
      const gate = (session: string, remember?: 'session' | 'project') =>
        createToolgate({
          config,
          roots: [root],
          journal,
          session,
          approver: async () => (remember ? { kind: 'approve_all', remember } : { kind: 'deny_all' }),
        });
      await gate('a', 'session').execute([
        { id: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } },
      ]);
      await gate('p', 'project').execute([
        { id: '2', name: 'write_file', arguments: { path: 'p.txt', content: 'p' } },
      ]);
      const a = gate('a');
      const b = gate('b');
      expect(await outcome(a, 'write_file', { path: 'a.txt', content: 'x', overwrite: true })).toBe(
        'execute',
      );
      expect(await outcome(b, 'write_file', { path: 'a.txt', content: 'x', overwrite: true })).toBe(
        'needs_approval',
      );
      expect(await outcome(b, 'write_file', { path: 'p.txt', content: 'x', overwrite: true })).toBe(
        'execute',
      );
      expect(await outcome(b, 'write_file', { path: 'q.txt', content: 'x' })).toBe('needs_approval');
      const project = journal.allGrants().find((g) => g.scope === 'project');
      expect(journal.revokeGrant(project?.id as number)).toBe(true);
      expect(await outcome(b, 'write_file', { path: 'p.txt', content: 'x', overwrite: true })).toBe(
        'needs_approval',
      );
    });

    it('rows from before the change (tool-wide) survive the migration but allow nothing; a row whose coverage does not read back allows nothing', async () => {
      const store = make();
      store.journal.close();
      opened.splice(opened.indexOf(store.journal), 1);
      store.downgrade();
      // What the previous release wrote for "always" on one write_file, and on one git push.
      store.raw(
        "INSERT INTO grants (session_id, tool, prefix, scope, created_at) VALUES (NULL, 'write_file', NULL, 'project', 5)",
      );
      store.raw(
        `INSERT INTO grants (session_id, tool, prefix, scope, created_at) VALUES (NULL, 'run_command', '["git","push"]', 'project', 6)`,
      );
      const journal = store.reopen(); // migrates
      store.raw(
        `INSERT INTO grants (session_id, tool, prefix, covers, scope, created_at) VALUES (NULL, 'edit_file', NULL, '{"kind":"everything"}', 'project', 7)`,
      );
      // On SQLite no row written outside toolgate (by an older one included) carries this user's
      // seal: each allows nothing, the git push one too (see test/security/foreign-state.test.ts).
      expect(journal.allGrants().map((g) => [g.tool, g.covers])).toEqual([
        ['write_file', { kind: 'tool_wide_legacy' }],
        [
          'run_command',
          name === 'SQLite' ? { kind: 'tool_wide_legacy' } : { kind: 'command', prefix: ['git', 'push'] },
        ],
        ['edit_file', { kind: 'tool_wide_legacy' }],
      ]);
      const root = makeTempDir('toolgate-grants-root-');
      const gate = createToolgate({ config, roots: [root], journal, session: 'any' });
      expect(await outcome(gate, 'write_file', { path: 'x.txt', content: 'x' })).toBe('needs_approval');
      expect(
        await outcome(gate, 'edit_file', { path: 'x.txt', edits: [{ target: 'a', replacement: 'b' }] }),
      ).not.toBe('execute');
    });
  });
}
