import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { type PgServer, startPostgres } from '../helpers/postgres.js';
import { runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Approvals from anywhere (issue #17 §3): a process run with --approve remote waits; another
 * process answers with `toolgate approvals`, and the answer applies only to the preview shown.
 */
let server: PgServer;
beforeAll(() => {
  server = startPostgres();
}, 60_000);
afterAll(() => server?.stop());

const write = (id: string, file: string) =>
  JSON.stringify([{ id, name: 'write_file', arguments: { path: file, content: `made by ${id}\n` } }]);

/** Waits until `approvals list --json` shows one waiting call; returns its id. */
async function waitingId(args: string[]): Promise<{ id: string; list: Record<string, unknown>[] }> {
  for (let i = 0; i < 200; i++) {
    const r = runCli(['approvals', 'list', '--json', ...args]);
    const list = JSON.parse(r.stdout || '[]') as Record<string, unknown>[];
    if (list.length > 0) return { id: String(list[0]?.id), list };
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('nothing came to wait for an answer');
}

describe('toolgate approvals with --approve remote (issue #17 §3)', () => {
  it('PostgreSQL: exec waits; approvals list/show from another process; approve lets it run', async () => {
    const url = server.createDatabase();
    const root = makeTempDir('toolgate-remote-pg-');
    const args = ['--root', root, '--journal', url];
    const run = runCliAsync(['exec', '--approve', 'remote', ...args], { input: write('w1', 'a.txt') });
    const { id, list } = await waitingId(args);
    expect(list[0]).toMatchObject({ tool: 'write_file', summary: expect.stringContaining('a.txt') });
    expect(list[0]?.session).toEqual(expect.any(String));
    expect(Date.parse(String(list[0]?.requested_at))).not.toBeNaN();
    const show = runCli(['approvals', 'show', id, ...args]);
    expect(show.stdout).toMatch(/tool:\s+write_file/);
    expect(show.stdout).toMatch(/preview:\s+[0-9a-f]{64}/);
    const stale = runCli(['approvals', 'approve', id, '--preview', '0'.repeat(64), ...args]);
    expect(stale.status).toBe(2);
    expect(stale.stderr).toMatch(/is not the one you looked at/);
    const preview = /preview:\s+([0-9a-f]{64})/.exec(show.stdout)?.[1] ?? '';
    const yes = runCli([
      'approvals',
      'approve',
      id.slice(0, 8) + id.slice(id.lastIndexOf('.')),
      '--preview',
      preview,
      ...args,
    ]);
    expect(yes.stdout).toBe(`approved ${id}\n`);
    const done = await run;
    expect(JSON.parse(done.stdout)[0]).toMatchObject({ ok: true });
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('made by w1\n');
    expect(runCli(['approvals', 'list', '--json', ...args]).stdout.trim()).toBe('[]');
  });

  it('SQLite: deny --reason reaches the model; who answered is named', async () => {
    const root = makeTempDir('toolgate-remote-sqlite-');
    const args = ['--root', root];
    const run = runCliAsync(['exec', '--approve', 'remote', ...args], { input: write('w2', 'b.txt') });
    const { id } = await waitingId(args);
    expect(runCli(['approvals', 'deny', id, ...args]).stderr).toMatch(/--reason/);
    const no = runCli(['approvals', 'deny', id, '--reason', 'not on a Friday', ...args]);
    expect(no.stdout).toBe(`denied ${id}\n`);
    const done = await run;
    const [result] = JSON.parse(done.stdout);
    expect(result.error.type).toBe('Denied');
    expect(result.content).toContain(`denied by ${os.userInfo().username}@${os.hostname()}: not on a Friday`);
    expect(runCli(['approvals', 'approve', id, ...args]).stderr).toMatch(/not waiting for an answer/);
  });

  it('an answer given for another preview than the one waiting does not apply (the journal row was altered after the question)', async () => {
    const root = makeTempDir('toolgate-remote-bind-');
    const args = ['--root', root];
    const run = runCliAsync(['exec', '--approve', 'remote', ...args], { input: write('w3', 'c.txt') });
    const { id } = await waitingId(args);
    // Someone with write access to the journal rewrites what the person will be shown.
    const db = new Database(path.join(root, '.toolgate', 'journal.db'));
    db.prepare(
      "UPDATE calls SET approval = json_set(approval, '$.summary', 'Create harmless.txt') WHERE status = 'awaiting_approval'",
    ).run();
    db.close();
    expect(runCli(['approvals', 'show', id, ...args]).stdout).toMatch(/harmless\.txt/);
    expect(runCli(['approvals', 'approve', id, ...args]).status).toBe(0);
    const [result] = JSON.parse((await run).stdout);
    expect(result.error.type).toBe('Denied');
    expect(result.content).toMatch(/answered a different preview of this call than the one waiting/);
  });

  it('issue #30 §5: approvals show says what each "always" covers and for whom; --always is refused where the call has no offer', async () => {
    const root = makeTempDir('toolgate-remote-always-');
    const args = ['--root', root];
    const run = runCliAsync(['exec', '--approve', 'remote', ...args], { input: write('w5', 'g.txt') });
    const { id } = await waitingId(args);
    const show = runCli(['approvals', 'show', id, ...args]).stdout;
    expect(show).toContain('always (session): always allow write_file to g.txt in this session');
    expect(show).toContain(
      'always (project): always allow write_file to g.txt for every session on this journal (every agent using it)',
    );
    const yes = runCli(['approvals', 'approve', id, '--always', 'session', ...args]);
    expect(yes.stdout).toBe(`approved ${id} (always allow write_file to g.txt in this session)\n`);
    expect(JSON.parse((await run).stdout)[0]).toMatchObject({ ok: true });
    const grants = JSON.parse(runCli(['grants', 'list', '--json', ...args]).stdout) as { text: string }[];
    expect(grants.map((g) => g.text)).toEqual([expect.stringMatching(/^write_file to g\.txt, session /)]);

    writeFileSync(path.join(root, 'old.txt'), 'x');
    const del = runCliAsync(['exec', '--approve', 'remote', ...args], {
      input: JSON.stringify([{ id: 'd1', name: 'delete_file', arguments: { path: 'old.txt' } }]),
    });
    const waiting = await waitingId(args);
    expect(runCli(['approvals', 'show', waiting.id, ...args]).stdout).toMatch(
      /always:\s+"always" is not available for delete_file/,
    );
    const refused = runCli(['approvals', 'approve', waiting.id, '--always', 'project', ...args]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`approve ${waiting.id} without --always`);
    expect(runCli(['approvals', 'approve', waiting.id, ...args]).status).toBe(0);
    expect(JSON.parse((await del).stdout)[0]).toMatchObject({ ok: true });
    expect(existsSync(path.join(root, 'old.txt'))).toBe(false);
  });

  it('no answer in time is a denial, as at a terminal', async () => {
    const root = makeTempDir('toolgate-remote-timeout-');
    writeFileSync(path.join(root, 'toolgate.toml'), '[tools.approval]\ntimeout_seconds = 1\n');
    const done = await runCliAsync(['exec', '--approve', 'remote', '--root', root], {
      input: write('w5', 'e.txt'),
    });
    const [result] = JSON.parse(done.stdout);
    expect(result.error.type).toBe('Denied');
    expect(result.content).toMatch(/no answer/);
    expect(existsSync(path.join(root, 'e.txt'))).toBe(false);
  });

  it('--approve remote without a journal is a usage error, before anything runs', () => {
    const root = makeTempDir('toolgate-remote-none-');
    const r = runCli(['exec', '--approve', 'remote', '--no-journal', '--root', root], {
      input: write('w4', 'd.txt'),
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--approve remote waits for answers given in the journal/);
  });
});
