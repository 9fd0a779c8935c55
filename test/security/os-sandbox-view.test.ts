import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #29, finding 7: under sandbox = "os" the denied patterns hold for the whole filesystem the
 * command sees, not only inside the roots; and git works there, its internals readable, not
 * writable. Everything runs for real: bubblewrap, bash, git. Files planted outside the roots go
 * where a real machine keeps them (a second user's home under /home, /etc) and are removed after.
 */

const SECRET = `TOOLGATE-VIEW-SECRET-${randomBytes(4).toString('hex')}`;
const user = `tgview${randomBytes(3).toString('hex')}`;
const otherHome = path.join('/home', user);
const etcKey = `/etc/toolgate-view-${user}.key`;
const etcPrivate = `/etc/toolgate-view-${user}.conf`;

function gate(root: string) {
  return createToolgate({
    config: validateConfig({ tools: { approval: { denylist: [] }, run_command: { sandbox: 'os' } } }),
    roots: [root],
    approver: approveAll,
  });
}

type Gate = ReturnType<typeof gate>;

async function run(g: Gate, command: string) {
  const [r] = await g.execute([
    { id: `c${randomBytes(4).toString('hex')}`, name: 'run_command', arguments: { command } },
  ]);
  if (!r) throw new Error('no result');
  return r;
}

function git(cwd: string, ...args: string[]) {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

describe('issue #29 §7: the OS sandbox view (bubblewrap, for real)', () => {
  let g: Gate;
  let base: string;
  let root: string;

  beforeAll(() => {
    // A second user's home, as the home directories of a shared machine are laid out (CI runs as root).
    mkdirSync(path.join(otherHome, '.ssh'), { recursive: true });
    writeFileSync(path.join(otherHome, '.ssh', 'id_rsa'), `${SECRET} ssh\n`);
    writeFileSync(path.join(otherHome, 'server.key'), `${SECRET} key\n`);
    writeFileSync(path.join(otherHome, 'deploy.pem'), `${SECRET} pem\n`);
    writeFileSync(path.join(otherHome, 'notes.txt'), `${SECRET} notes\n`);
    // /etc stays visible: a denied name there, and a file only its owner may read.
    writeFileSync(etcKey, `${SECRET} etc-key\n`, { mode: 0o644 });
    writeFileSync(etcPrivate, `${SECRET} etc-private\n`);
    chmodSync(etcPrivate, 0o600);
    base = makeTempDir('toolgate-view-');
    root = path.join(base, 'root');
    mkdirSync(root);
    // Beside the root, outside it: in the same directory the root lives in.
    writeFileSync(path.join(base, 'sibling.pem'), `${SECRET} sibling\n`);
    writeFileSync(path.join(base, 'sibling.txt'), `${SECRET} sibling-txt\n`);
    g = gate(root);
  });

  afterAll(async () => {
    await g?.close();
    rmSync(otherHome, { recursive: true, force: true });
    rmSync(etcKey, { force: true });
    rmSync(etcPrivate, { force: true });
  });

  it.each([
    [
      'cat',
      `cat ${otherHome}/.ssh/id_rsa ${otherHome}/server.key ${otherHome}/deploy.pem ${otherHome}/notes.txt`,
    ],
    [
      'find',
      `find / -xdev \\( -name id_rsa -o -name '*.key' -o -name '*.pem' -o -name notes.txt \\) -exec cat {} + 2>/dev/null`,
    ],
    ['grep -r', `grep -r ${SECRET} /home /etc /tmp /srv /opt /var 2>/dev/null`],
    // Composed at run time, so the planner cannot see the path: the sandbox alone answers.
    ['a file beside the root', 'cat "$(dirname "$PWD")"/sibling*'],
  ])(
    "issue #29 §7: another user's keys and files outside the roots are not there (%s)",
    async (_name, command) => {
      const r = await run(g, command);
      expect(r.content).not.toContain(SECRET);
    },
  );

  it("issue #29 §7: another user's home is not even listed", async () => {
    const r = await run(g, 'ls -a /home; find / -xdev -name id_rsa 2>/dev/null; true');
    expect(r.content).toBe('.\n..\n');
  });

  it('issue #29 §7: /etc is shown minus its secrets (denied names, files only their owner may read)', async () => {
    const visible = await run(g, 'cat /etc/hostname /etc/passwd | head -c 0 && echo readable');
    expect(visible.content).toBe('readable\n');
    for (const file of [etcKey, etcPrivate, '/etc/shadow']) {
      const r = await run(g, `cat ${file}`);
      expect(r.ok, file).toBe(false);
      expect(r.content).not.toContain(SECRET);
    }
    expect((await run(g, `grep -rl ${SECRET} /etc 2>/dev/null; true`)).content).toBe('');
  });

  it('issue #29 §7: writes outside the roots never reach the disk', async () => {
    for (const command of ['touch /etc/toolgate-view-write', 'touch /usr/toolgate-view-write']) {
      const r = await run(g, command);
      expect(r.ok, command).toBe(false);
    }
    // Hidden directories are empty, private scratch space: what is written there is gone with the command.
    await run(
      g,
      `echo pwned > ${base}/outside.txt; echo pwned > ${otherHome}/planted; mkdir -p /root/.ssh; echo k >> /root/.ssh/authorized_keys`,
    );
    expect(existsSync(path.join(base, 'outside.txt'))).toBe(false);
    expect(existsSync(path.join(otherHome, 'planted'))).toBe(false);
    expect(existsSync('/etc/toolgate-view-write')).toBe(false);
    expect(existsSync('/usr/toolgate-view-write')).toBe(false);
    expect((await run(g, `cat ${base}/outside.txt`)).ok).toBe(false);
  });

  it('issue #29 §7: a temporary directory works inside (private /tmp)', async () => {
    const r = await run(g, 'f=$(mktemp) && echo scratch > "$f" && cat "$f"');
    expect(r.content).toBe('scratch\n');
  });
});

describe('issue #29 §7: git inside the OS sandbox', () => {
  let g: Gate;
  let repo: string;

  beforeAll(() => {
    repo = makeTempDir('toolgate-view-git-');
    git(repo, 'init', '-q');
    // Identity in the repository's own config: the user's ~/.gitconfig is not in the view.
    git(repo, 'config', 'user.name', 'Toolgate Test');
    git(repo, 'config', 'user.email', 'test@toolgate.invalid');
    writeFileSync(path.join(repo, 'a.txt'), 'one\n');
    git(repo, 'add', 'a.txt');
    git(repo, 'commit', '-q', '-m', 'first');
    g = gate(repo);
  });

  afterAll(async () => {
    await g?.close();
  });

  it('issue #29 §7: git status, diff, log and commit work in a root', async () => {
    writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\n');
    const status = await run(g, 'git status --short');
    expect(status.ok, status.content).toBe(true);
    expect(status.content).toContain('M a.txt');
    const diff = await run(g, 'git diff');
    expect(diff.content).toContain('+two');
    const commit = await run(g, 'git commit -q -am second && git log --oneline');
    expect(commit.ok, commit.content).toBe(true);
    expect(commit.content).toMatch(/second\n.*first\n$/);
    expect(git(repo, 'log', '--format=%s')).toBe('second\nfirst\n');
  });

  it('issue #29 §7: .git/config is readable but not writable; hooks, alternates, attributes cannot be planted', async () => {
    const config = readFileSync(path.join(repo, '.git', 'config'), 'utf8');
    const read = await run(g, 'cat .git/config');
    expect(read.content).toBe(config);
    const attempts = [
      'echo "[core] fsmonitor = touch /tmp/pwned" >> .git/config',
      'git config core.pager "touch /tmp/pwned"',
      'printf "#!/bin/sh\\ntouch /tmp/pwned\\n" > .git/hooks/post-commit && chmod +x .git/hooks/post-commit',
      'echo /tmp/elsewhere > .git/objects/info/alternates',
      'echo "* filter=evil" > .git/info/attributes',
      'echo "[core] fsmonitor = x" > .git/config.worktree',
    ];
    for (const command of attempts) {
      const r = await run(g, command);
      expect(r.ok, command).toBe(false);
    }
    expect(readFileSync(path.join(repo, '.git', 'config'), 'utf8')).toBe(config);
    expect(existsSync(path.join(repo, '.git', 'hooks', 'post-commit'))).toBe(false);
    for (const planted of ['objects/info/alternates', 'info/attributes', 'config.worktree']) {
      const p = path.join(repo, '.git', planted);
      expect(existsSync(p) ? readFileSync(p, 'utf8') : '', planted).toBe('');
    }
  });
});
