import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #13 item 6: git_status (a read-only tool that asks nobody) in a hostile repository. Every
 * git config key with which git runs a program is planted — in the repository's config, through an
 * include, and in $HOME's config for a HOME the repository chose — with a program that creates a
 * marker outside the root; git_status must report the status and the marker must stay absent.
 */
const EXECUTING_KEYS = [
  'core.fsmonitor',
  'core.hooksPath',
  'core.pager',
  'core.editor',
  'core.sshCommand',
  'core.askPass',
  'core.gitProxy',
  'core.alternateRefsCommand',
  'sequence.editor',
  'diff.external',
  'diff.x.textconv',
  'diff.x.command',
  'merge.x.driver',
  'filter.x.clean',
  'filter.x.smudge',
  'filter.x.process',
  'pager.status',
  'credential.helper',
  'gpg.program',
  'uploadpack.packObjectsHook',
];

function hostileRepo(where: 'local' | 'include' | 'home'): { repo: string; marker: string } {
  const repo = makeTempDir('toolgate-hostile-git-');
  const marker = path.join(makeTempDir('toolgate-marker-'), 'pwned');
  const evil = path.join(repo, 'evil.sh');
  writeFileSync(evil, `#!/bin/sh\ntouch '${marker}'\ncat\n`);
  chmodSync(evil, 0o755);
  const git = (...a: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...a], { cwd: repo, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(repo, '.gitattributes'), '* filter=x diff=x merge=x\n');
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  mkdirSync(path.join(repo, 'sub'));
  writeFileSync(path.join(repo, 'sub', 'b.txt'), 'untracked\n');
  // Modified after the commit, with the same size and a fresh mtime: git must look at its content.
  writeFileSync(path.join(repo, 'a.txt'), 'two\n');
  mkdirSync(path.join(repo, 'home'));
  const file =
    where === 'local'
      ? path.join(repo, '.git', 'config')
      : where === 'home'
        ? path.join(repo, 'home', '.gitconfig')
        : path.join(repo, 'included.cfg');
  if (where === 'include') git('config', 'include.path', '../included.cfg');
  for (const key of EXECUTING_KEYS) {
    execFileSync('git', ['config', '--file', file, key, evil], { cwd: repo });
  }
  return { repo, marker };
}

async function gitStatus(root: string, env?: Record<string, string>) {
  const saved = { ...process.env };
  Object.assign(process.env, env ?? {});
  try {
    const gate = createToolgate({ config: validateConfig({}), roots: [root], approver: approveAll });
    const [r] = await gate.execute([{ id: '1', name: 'git_status', arguments: {} }]);
    return r;
  } finally {
    for (const k of Object.keys(env ?? {})) if (saved[k] === undefined) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

describe('git_status in a hostile repository (issue #13)', () => {
  for (const where of ['local', 'include', 'home'] as const) {
    it(`runs no program from the ${where} config (${EXECUTING_KEYS.length} keys)`, async () => {
      const { repo, marker } = hostileRepo(where);
      const env: Record<string, string> =
        where === 'home' ? { HOME: path.join(repo, 'home'), XDG_CONFIG_HOME: path.join(repo, 'home') } : {};
      // The planted config really would run: a plain `git status` there creates the marker.
      execFileSync('git', ['status', '--porcelain'], {
        cwd: repo,
        stdio: 'ignore',
        env: { ...process.env, ...env },
      });
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);
      const r = await gitStatus(repo, env);
      expect(r?.ok).toBe(true);
      expect(JSON.parse(r?.content ?? '{}')).toMatchObject({ branch: 'main', unstaged: ['a.txt'] });
      expect(existsSync(marker)).toBe(false);
    });
  }

  it('reports nothing outside the roots: a working tree elsewhere is refused, a larger repository is cut to the root', async () => {
    const outside = makeTempDir('toolgate-outside-tree-');
    writeFileSync(path.join(outside, 'secret-name.txt'), 'x');
    const repo = makeTempDir('toolgate-worktree-');
    execFileSync('git', ['init', '-q'], { cwd: repo });
    execFileSync('git', ['config', 'core.worktree', outside], { cwd: repo });
    const elsewhere = await gitStatus(repo);
    expect(elsewhere?.error?.type).toBe('SandboxViolation');
    expect(elsewhere?.content).not.toContain('secret-name');

    const { repo: big } = hostileRepo('local');
    const r = await gitStatus(path.join(big, 'sub'));
    expect(r?.ok).toBe(true);
    expect(JSON.parse(r?.content ?? '{}')).toMatchObject({ unstaged: [], untracked: ['sub/'] });
  });
});
