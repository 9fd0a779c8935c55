import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresJournal } from '../../src/journal/postgres/postgres-journal.js';
import { runCli, trustProject } from '../cli/run-cli.js';
import { type PgServer, startPostgres } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/workspace.js';

/** The CLI on a PostgreSQL journal (issue #17 §1): `--journal postgres://…` and `[journal] url`. */
let server: PgServer;
beforeAll(() => {
  server = startPostgres();
}, 60_000);
afterAll(() => server?.stop());

describe('toolgate on a PostgreSQL journal', () => {
  it('exec journals there (--journal URL); journal list/show and mode read it back; no journal file is made in the workspace', () => {
    const url = server.createDatabase();
    const root = makeTempDir('toolgate-pg-cli-');
    writeFileSync(path.join(root, 'a.txt'), 'alpha\n');
    const call = JSON.stringify([{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }]);
    const run = runCli(['exec', '--root', root, '--journal', url], { input: call });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)[0]).toMatchObject({ ok: true, content: 'alpha\n' });
    const list = runCli(['journal', 'list', '--root', root, '--journal', url]);
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/complete/);
    const journal = PostgresJournal.open(url);
    try {
      const [batch] = journal.recentBatches(1);
      expect(journal.batch(batch?.id ?? '')?.calls[0]).toMatchObject({
        id: 'r1',
        name: 'read_file',
        status: 'done',
      });
      const set = runCli(['mode', 'set', 'ALERT', '--reason', 'drill', '--root', root, '--journal', url]);
      expect(set.status).toBe(0);
      expect(journal.governanceMode()).toMatchObject({ mode: 'ALERT', reason: 'drill' });
    } finally {
      journal.close();
    }
    // No SQLite journal was made in the workspace.
    expect(existsSync(path.join(root, '.toolgate'))).toBe(false);
  });

  it('[journal] url in toolgate.toml is used by default; a password in it is refused (PGPASSWORD instead)', () => {
    const url = server.createDatabase();
    const root = makeTempDir('toolgate-pg-cfg-');
    writeFileSync(path.join(root, 'b.txt'), 'beta\n');
    writeFileSync(path.join(root, 'toolgate.toml'), `[journal]\nurl = "${url}"\n`);
    trustProject(root); // a project's own config applies in full once trusted (issue #29 §6)
    const call = JSON.stringify([{ id: 'r2', name: 'read_file', arguments: { path: 'b.txt' } }]);
    expect(runCli(['exec'], { cwd: root, input: call }).status).toBe(0);
    const journal = PostgresJournal.open(url);
    try {
      expect(journal.recentBatches(5)).toHaveLength(1);
    } finally {
      journal.close();
    }
    writeFileSync(path.join(root, 'toolgate.toml'), '[journal]\nurl = "postgres://u:hunter2@db/x"\n');
    const refused = runCli(['exec'], { cwd: root, input: call });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/without a password: put the password in PGPASSWORD/);
    expect(refused.stderr).not.toContain('hunter2');
  });

  it('toolgate worker --once takes over a batch whose worker died (its lease ran out) and finishes it', async () => {
    const url = server.createDatabase();
    const root = makeTempDir('toolgate-pg-worker-');
    // A worker that recorded a batch and died before running it: its lease runs out.
    const dead = PostgresJournal.open(url);
    const id = dead.beginBatch(
      's-dead',
      [{ id: 'w1', name: 'write_file', arguments: { path: 'made.txt', content: 'by the second worker\n' } }],
      {
        lease: { worker: 'dead-worker', ttlMs: 50 },
      },
    );
    dead.close();
    await new Promise((r) => setTimeout(r, 150));
    const worker = runCli(['worker', '--once', '--approve', 'all', '--root', root, '--journal', url]);
    expect(worker.stderr).toBe('');
    expect(worker.stdout).toMatch(new RegExp(`took over batch ${id} \\(session s-dead\\): 1 calls, 1 ok`));
    expect(worker.stdout).toMatch(/1 batch taken over/);
    expect(readFileSync(path.join(root, 'made.txt'), 'utf8')).toBe('by the second worker\n');
    const journal = PostgresJournal.open(url);
    try {
      expect(journal.batch(id)).toMatchObject({ status: 'complete', calls: [{ id: 'w1', status: 'done' }] });
    } finally {
      journal.close();
    }
  });

  it('toolgate recover --take-over ID finishes one batch whose worker died: what never started runs', async () => {
    const url = server.createDatabase();
    const root = makeTempDir('toolgate-pg-takeover-');
    const dead = PostgresJournal.open(url);
    const id = dead.beginBatch(
      's-gone',
      [{ id: 'w2', name: 'write_file', arguments: { path: 'taken.txt', content: 'finished by recover\n' } }],
      {
        lease: { worker: 'gone', ttlMs: 50 },
      },
    );
    dead.close();
    await new Promise((r) => setTimeout(r, 150));
    const r = runCli([
      'recover',
      '--take-over',
      id.slice(0, 8),
      '--approve',
      'all',
      '--root',
      root,
      '--journal',
      url,
    ]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ id: 'w2', ok: true });
    expect(readFileSync(path.join(root, 'taken.txt'), 'utf8')).toBe('finished by recover\n');
  });

  it('a server that cannot be reached stops the command before anything runs (exit 2), naming the URL without its password', () => {
    const root = makeTempDir('toolgate-pg-down-');
    const call = JSON.stringify([
      { id: 'w', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
    ]);
    const r = runCli(['exec', '--root', root, '--journal', 'postgres://u@localhost/x?host=/nonexistent'], {
      input: call,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot reach the PostgreSQL journal postgres:\/\/u@localhost/);
    // With a password in it, the URL is refused before any connection (issue #30 §9), shown redacted.
    const withPassword = runCli(
      ['exec', '--root', root, '--journal', 'postgres://u:hunter2@localhost/x?host=/nonexistent'],
      { input: call },
    );
    expect(withPassword.status).toBe(2);
    expect(withPassword.stderr).toMatch(/without a password \(postgres:\/\/u:\*\*\*@localhost/);
    expect(withPassword.stderr).not.toContain('hunter2');
  });
});
