import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll, denyAll } from '../../src/core/confirmation.js';
import type { ToolCall } from '../../src/core/tool-call.js';
import { GIT_INTERNAL_PATTERNS } from '../../src/sandbox/default-denies.js';
import { denyMatcher } from '../../src/sandbox/deny-matcher.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #29 §5: a write into a repository's git internals changes what git runs next — the
 * model's git and the user's own (`.git/commondir` pointing at a planted config makes the user's
 * next `git status` run its fsmonitor). No tool writes them, whoever approves: write_file,
 * edit_file, apply_patch, delete_file and command arguments naming them. Each case checks the
 * disk afterwards and that the user's own git status still runs nothing.
 */
function hostileWorld() {
  const root = makeTempDir('toolgate-git-internals-');
  const marker = path.join(makeTempDir('toolgate-git-internals-marker-'), 'pwned');
  execFileSync('git', ['init', '-q'], { cwd: root });
  execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x'],
    {
      cwd: root,
    },
  );
  execFileSync('git', ['worktree', 'add', '-q', '--detach', path.join(root, 'wt')], {
    cwd: root,
    stdio: 'ignore',
  });
  mkdirSync(path.join(root, 'sub'));
  mkdirSync(path.join(root, 'evil'));
  // What a planted pointer would lead git to: a config that runs a program.
  writeFileSync(path.join(root, 'evil', 'config'), `[core]\n\tfsmonitor = touch ${marker}\n`);
  symlinkSync('.git', path.join(root, 'link'));
  return { root, marker };
}

const gate = (root: string, approve: boolean) =>
  createToolgate({
    config: validateConfig({
      tools: {
        approval: { denylist: [] },
        run_command: { allow: ['cp', 'ln', 'mv', 'tee', 'git config'] },
      },
    }),
    roots: [root],
    approver: approve ? approveAll : denyAll,
  });

const call = (name: string, args: Record<string, unknown>): ToolCall => ({ id: '1', name, arguments: args });

const WRITES: [what: string, call: ToolCall, target: string][] = [
  [
    'write_file .git/commondir',
    call('write_file', { path: '.git/commondir', content: '../evil\n' }),
    '.git/commondir',
  ],
  ['write_file .git/config', call('write_file', { path: '.git/config', content: '[core]\n' }), '.git/config'],
  [
    'write_file a hook',
    call('write_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' }),
    '.git/hooks/pre-commit',
  ],
  [
    'write_file info/attributes',
    call('write_file', { path: '.git/info/attributes', content: '* filter=x\n' }),
    '.git/info/attributes',
  ],
  [
    'write_file alternates',
    call('write_file', { path: '.git/objects/info/alternates', content: '/x\n' }),
    '.git/objects/info/alternates',
  ],
  [
    'write_file a rebase todo',
    call('write_file', { path: '.git/rebase-merge/git-rebase-todo', content: 'exec x\n' }),
    '.git/rebase-merge/git-rebase-todo',
  ],
  [
    'write_file a worktree gitdir',
    call('write_file', { path: '.git/worktrees/wt/gitdir', content: '/x\n' }),
    '.git/worktrees/wt/gitdir',
  ],
  [
    'write_file a worktree commondir',
    call('write_file', { path: '.git/worktrees/wt/commondir', content: '../../../evil\n' }),
    '.git/worktrees/wt/commondir',
  ],
  [
    'write_file a module config',
    call('write_file', { path: '.git/modules/m/config', content: '[core]\n' }),
    '.git/modules/m/config',
  ],
  [
    'write_file a module commondir',
    call('write_file', { path: '.git/modules/m/commondir', content: '../evil\n' }),
    '.git/modules/m/commondir',
  ],
  [
    'write_file a .git file in a subdirectory',
    call('write_file', { path: 'sub/.git', content: 'gitdir: ../evil\n' }),
    'sub/.git',
  ],
  [
    'write_file through a symlinked directory',
    call('write_file', { path: 'link/commondir', content: '../evil\n' }),
    '.git/commondir',
  ],
  [
    'apply_patch adding a hook',
    call('apply_patch', {
      patch: '*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n+touch x\n*** End Patch\n',
    }),
    '.git/hooks/pre-commit',
  ],
  [
    'apply_patch adding a .git file',
    call('apply_patch', {
      patch: '*** Begin Patch\n*** Add File: sub/.git\n+gitdir: ../evil\n*** End Patch\n',
    }),
    'sub/.git',
  ],
  [
    'cp onto .git/commondir',
    call('run_command', { command: 'cp evil/config .git/commondir' }),
    '.git/commondir',
  ],
  ['ln -s making a .git link', call('run_command', { command: 'ln -s ../evil sub/.git' }), 'sub/.git'],
  [
    'tee into a hook',
    call('run_command', { command: 'echo x | tee .git/hooks/post-checkout' }),
    '.git/hooks/post-checkout',
  ],
];

describe('issue #29 §5: writes into git internals are never made without a person (and not with one)', () => {
  for (const approve of [false, true]) {
    // A person who approves a command line approves what it does: with approval, only the path tools' refusal is tested.
    for (const [what, toolCall, target] of WRITES.filter(([, c]) => !approve || c.name !== 'run_command')) {
      it(`${what} (${approve ? 'everything approved' : 'nobody to approve'})`, async () => {
        const { root, marker } = hostileWorld();
        const content = () =>
          existsSync(path.join(root, target)) ? readFileSync(path.join(root, target), 'utf8') : null;
        const before = content();
        const g = gate(root, approve);
        const [result] = await g.execute([toolCall]);
        await g.close();
        expect(result?.ok, result?.content).toBe(false);
        expect(content()).toBe(before);
        execFileSync('git', ['status', '--porcelain'], { cwd: path.join(root, 'sub'), stdio: 'ignore' });
        expect(existsSync(marker)).toBe(false);
      });
    }
  }

  it('a write to .git/config keeps its content; edit_file and delete_file are refused too', async () => {
    const { root } = hostileWorld();
    const before = readFileSync(path.join(root, '.git', 'config'), 'utf8');
    const g = gate(root, true);
    const results = await g.execute([
      call('edit_file', { path: '.git/config', old_string: '[core]', new_string: '[core]\n\tfsmonitor = x' }),
      call('delete_file', { path: '.git/worktrees/wt/gitdir' }),
    ]);
    await g.close();
    expect(results.map((r) => r.ok)).toEqual([false, false]);
    expect(readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(before);
    expect(existsSync(path.join(root, '.git', 'worktrees', 'wt', 'gitdir'))).toBe(true);
  });

  it('git config writing a setting asks (a change to what git runs); reading it does not', async () => {
    const { root } = hostileWorld();
    const g = gate(root, false);
    const plan = async (command: string) => {
      const c = call('run_command', { command });
      await g.prepare([c]);
      return g.plan([c])[0]?.disposition.kind;
    };
    expect(await plan('git config core.fsmonitor "touch x"')).toBe('needs_approval');
    expect(await plan('git config --add core.hooksPath x')).toBe('needs_approval');
    expect(await plan('git config set core.pager x')).toBe('needs_approval');
    expect(await plan('git config --get core.bare')).toBe('execute');
    expect(await plan('git config core.bare')).toBe('execute');
    await g.close();
  });

  it('reading the rest of .git stays possible (HEAD, refs)', async () => {
    const { root } = hostileWorld();
    const g = gate(root, false);
    const [head] = await g.execute([call('read_file', { path: '.git/HEAD' })]);
    await g.close();
    expect(head?.ok, head?.content).toBe(true);
  });

  it('where names are case-insensitive (macOS, Windows) the patterns match any case', () => {
    const { test } = denyMatcher(GIT_INTERNAL_PATTERNS, true);
    expect(test('.GIT/Hooks/pre-commit')).toBeDefined();
    expect(test('.Git/COMMONDIR')).toBeDefined();
    expect(denyMatcher(GIT_INTERNAL_PATTERNS, false).test('.GIT/hooks/pre-commit')).toBeUndefined();
  });
});

describe('issue #29 §5, second review: a root at or inside .git does not make its internals fair game', () => {
  it('with .git itself as the root (an untrusted config may name a root inside its project), config and hooks are still refused', async () => {
    const repo = makeTempDir('toolgate-git-root-');
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const gitDir = path.join(repo, '.git');
    const before = readFileSync(path.join(gitDir, 'config'), 'utf8');
    const g = createToolgate({
      config: validateConfig({ tools: { approval: { denylist: [] } } }),
      roots: [gitDir],
      approver: approveAll,
    });
    const results = await g.execute([
      { id: 'r', name: 'read_file', arguments: { path: 'HEAD' } },
      {
        id: 'c',
        name: 'write_file',
        arguments: { path: 'config', content: '[core]\n\tfsmonitor = /tmp/x\n', overwrite: true },
      },
      { id: 'h', name: 'write_file', arguments: { path: 'hooks/post-checkout', content: '#!/bin/sh\n' } },
      { id: 'd', name: 'write_file', arguments: { path: 'commondir', content: '/tmp\n' } },
    ]);
    await g.close();
    expect(results[0]?.ok, results[0]?.content).toBe(true);
    expect(results.slice(1).map((r) => r.ok)).toEqual([false, false, false]);
    expect(readFileSync(path.join(gitDir, 'config'), 'utf8')).toBe(before);
    expect(existsSync(path.join(gitDir, 'hooks', 'post-checkout'))).toBe(false);
    expect(existsSync(path.join(gitDir, 'commondir'))).toBe(false);
  });
});
