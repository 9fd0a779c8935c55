import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { remoteWaitNotice } from '../../src/cli/remote-wait-notice.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { makeTempDir } from '../helpers/workspace.js';
import { configHomeFor, REPO, runCli } from './run-cli.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
const write = (file: string) =>
  JSON.stringify([{ id: 'w1', name: 'write_file', arguments: { path: file, content: 'made remotely\n' } }]);

/** `toolgate exec --approve remote` running; `notice` resolves with its stderr once it has said how to answer. */
function execRemote(cwd: string, args: string[], input: string) {
  const child = spawn(process.execPath, [BIN, 'exec', '--approve', 'remote', ...args], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0', XDG_CONFIG_HOME: configHomeFor(undefined) },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const notice = new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      if (/if one runs on this journal\.\n/.test(stderr)) resolve(stderr);
    });
    child.on('close', () => reject(new Error(`exec ended before saying how to answer; stderr:\n${stderr}`)));
  });
  notice.catch(() => {});
  const done = new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
  child.stdin.end(input);
  return { notice, done };
}

/** The command the notice gives for `verb`, as words (it quotes nothing in these tests). */
function printed(notice: string, verb: string): string[] {
  const line = notice.split('\n').find((l) => l.trim().startsWith(`toolgate approvals ${verb} `));
  if (!line) throw new Error(`no "approvals ${verb}" line in:\n${notice}`);
  return line
    .replace(/\(.*\)$/, '')
    .trim()
    .split(/\s+/)
    .slice(1);
}

describe('issue #31 §3: --approve remote says once, on stderr, how to answer instead of waiting silently', () => {
  it('the waiting call and the commands that answer it; the printed approve command, run as shown, lets it run', async () => {
    const root = makeTempDir('toolgate-remote-notice-');
    const { notice, done } = execRemote(root, [], write('a.txt'));
    const said = await notice;
    const id = /^ {2}(\S+\.1) {2}write_file {2}.*a\.txt/m.exec(said)?.[1];
    expect(id, said).toMatch(/^[0-9a-f-]{36}\.1$/);
    const lines = said.split('\n');
    expect(lines[0]).toBe(
      'toolgate: waiting for a person to answer (--approve remote); nothing of it runs until then:',
    );
    expect(lines.slice(2)).toEqual([
      'Answer from any shell with this journal:',
      `  toolgate approvals show ${id}     (the whole preview)`,
      `  toolgate approvals approve ${id}`,
      `  toolgate approvals deny ${id} --reason TEXT`,
      'or in the web console (toolgate serve), if one runs on this journal.',
      '',
    ]);
    const show = runCli(printed(said, 'show'), { cwd: root });
    expect(show.stdout).toMatch(/tool:\s+write_file/);
    const yes = runCli(printed(said, 'approve'), { cwd: root });
    expect(yes.stdout).toBe(`approved ${id}\n`);
    const end = await done;
    expect(end.status).toBe(0);
    expect(JSON.parse(end.stdout)[0]).toMatchObject({ ok: true });
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('made remotely\n');
    expect(end.stderr).toBe(said); // once, and nothing more
  });

  it('a journal elsewhere: the commands name it, and the printed deny works from another folder', async () => {
    const root = makeTempDir('toolgate-remote-notice-');
    const state = makeTempDir('toolgate-remote-state-');
    const journal = path.join(state, 'j.db');
    const { notice, done } = execRemote(root, ['--journal', journal], write('b.txt'));
    const said = await notice;
    expect(said).toContain(`--journal ${journal}`);
    expect(said).toContain(`(toolgate serve --journal ${journal})`);
    const deny = printed(said, 'deny').map((w) => (w === 'TEXT' ? 'not today' : w));
    const no = runCli(deny, { cwd: makeTempDir('toolgate-elsewhere-') });
    expect(no.stdout).toMatch(/^denied \S+\.1\n$/);
    const [result] = JSON.parse((await done).stdout);
    expect(result.error.type).toBe('Denied');
    expect(result.content).toContain('not today');
  });

  it('the how-to is said once per process; a later wait lists its calls alone; no calls, nothing', () => {
    const root = makeTempDir('toolgate-remote-notice-');
    mkdirSync(path.join(root, '.toolgate'), { mode: 0o700 });
    const journal = SqliteJournal.open(path.join(root, '.toolgate', 'journal.db'));
    const out: string[] = [];
    const tell = remoteWaitNotice(journal, (t) => out.push(t), root);
    tell([]);
    expect(out).toEqual([]);
    const request = { callId: 'c', toolName: 'write_file', summary: 'Create x.txt' } as never;
    tell([{ batchId: 'B', index: 0, request }]);
    tell([{ batchId: 'C', index: 1, request }]);
    journal.close();
    expect(out[0]).toMatch(/^toolgate: waiting for a person to answer/);
    expect(out[0]).toContain('toolgate approvals approve B.1\n');
    // later batches: the calls alone, the how-to was said
    expect(out[1]).toBe(
      'toolgate: waiting for answers (--approve remote):\n  C.2  write_file  Create x.txt\n',
    );
  });
});
