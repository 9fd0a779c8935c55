// Commands that go through a directory tree (review finding, HIGH with auto_allow_read_only and no
// OS sandbox): `grep -r X .`, `rg X`, `find .`, `ls -R` read or list denied files and vaults that
// no path in the command names. Without the OS sandbox they ask; with it they run, fenced.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

function workspace() {
  const root = makeTempDir('toolgate-tree-');
  for (const d of ['src', 'sub', 'vault/deep']) mkdirSync(path.join(root, d), { recursive: true });
  writeFileSync(path.join(root, 'src', 'a.txt'), 'public SECRETTOKEN\n');
  writeFileSync(path.join(root, 'sub', 'server.pem'), 'pem SECRETTOKEN\n');
  writeFileSync(path.join(root, 'id_rsa'), 'key SECRETTOKEN\n');
  writeFileSync(path.join(root, 'vault', 'deep', 'v.txt'), 'vault SECRETTOKEN\n');
  return root;
}

const gateFor = (root: string, sandbox: 'none' | 'os', vault = true) =>
  createToolgate({
    config: validateConfig({
      tools: {
        approval: { denylist: [] },
        run_command: { auto_allow_read_only: true, sandbox },
        vault: { roots: vault ? [path.join(root, 'vault')] : [] },
      },
    }),
    roots: [root],
  });

async function decide(root: string, command: string, sandbox: 'none' | 'os', vault = true) {
  const gate = gateFor(root, sandbox, vault);
  const call = { id: '1', name: 'run_command', arguments: { command } };
  await gate.prepare([call]);
  const [planned] = gate.plan([call]);
  await gate.close();
  const kind = planned?.disposition.kind;
  return {
    outcome: kind === 'execute' ? 'allow' : kind === 'needs_approval' ? 'ask' : 'deny',
    why: planned?.decision?.reason ?? '',
  };
}

const TABLE: [command: string, none: 'allow' | 'ask', os: 'allow' | 'ask', why: string][] = [
  ['grep -r SECRETTOKEN .', 'ask', 'allow', 'grep -r reads every file under the directory'],
  ['grep -rn SECRETTOKEN', 'ask', 'allow', 'grep -r with no operand reads the working directory'],
  ['grep -R SECRETTOKEN src', 'ask', 'allow', '-R on a directory'],
  ['grep -nR SECRETTOKEN src', 'ask', 'allow', 'R inside a cluster'],
  ['grep --recursive SECRETTOKEN .', 'ask', 'allow', 'long option'],
  ['grep --recur SECRETTOKEN .', 'ask', 'allow', 'a prefix GNU takes for --recursive'],
  ['grep --dereference-recursive SECRETTOKEN .', 'ask', 'allow', 'follows links too'],
  ['grep -d recurse SECRETTOKEN .', 'ask', 'allow', '-d recurse'],
  ['grep --directories=recurse SECRETTOKEN .', 'ask', 'allow', '--directories=recurse'],
  ['grep --dir=recurse SECRETTOKEN .', 'ask', 'allow', 'a prefix of --directories'],
  ['grep -r -e SECRETTOKEN', 'ask', 'allow', 'the pattern from -e: no operand, so the working directory'],
  ['rg SECRETTOKEN', 'ask', 'allow', 'rg searches the working directory by default'],
  ['rg SECRETTOKEN .', 'ask', 'allow', 'rg on a directory'],
  ['rg -e SECRETTOKEN src', 'ask', 'allow', 'rg with -e on a directory'],
  ['rg --files', 'ask', 'allow', 'rg --files lists a tree holding a vault'],
  ['find . -type f', 'ask', 'allow', 'find lists a tree holding a vault'],
  ['find -L . -name x', 'ask', 'allow', 'find with -L before its path'],
  ['ls -R', 'ask', 'allow', 'ls -R lists a tree holding a vault'],
  ['ls -laR .', 'ask', 'allow', 'R inside a cluster'],
  ['tree', 'ask', 'allow', 'tree lists a tree holding a vault'],
  ['du -a', 'ask', 'allow', 'du lists a tree holding a vault'],
  ['git ls-files', 'ask', 'allow', 'git ls-files lists the working directory'],
  ['git -P ls-files', 'ask', 'allow', "after git's global options too (issue #29)"],
  ['git --no-pager status', 'ask', 'allow', 'git status after a global option'],
  [
    'grep SECRETTOKEN --directories recurse .',
    'ask',
    'allow',
    '--directories with its value as the next word (second review)',
  ],
  ['grep SECRETTOKEN --direc recurse .', 'ask', 'allow', 'a prefix of --directories, value as the next word'],
  ['grep -drecurse SECRETTOKEN .', 'ask', 'allow', '-d with its value attached'],
  ['grep -d rec SECRETTOKEN .', 'ask', 'allow', 'an abbreviated action is still not read or skip'],
  [
    'grep -r --include a.txt SECRETTOKEN',
    'ask',
    'allow',
    'a value word that names a file does not hide the working directory',
  ],
  [
    'grep -r SECRETTOKEN src/a.txt',
    'ask',
    'allow',
    'recursive: its operands cannot be told from option values with certainty',
  ],
  ['rg --glob a.txt SECRETTOKEN', 'ask', 'allow', 'rg with an option taking a value'],
  ['rg -t txt SECRETTOKEN', 'ask', 'allow', 'rg -t takes a value: no operand, the working directory'],
  ['du --exclude x', 'ask', 'allow', 'a value word of du does not hide the working directory'],
  ['ls -R --hide x', 'ask', 'allow', 'nor one of ls'],
  ['grep -d skip SECRETTOKEN src/a.txt', 'allow', 'allow', '-d skip does not recurse'],
  ['rg -in SECRETTOKEN src/a.txt', 'allow', 'allow', 'rg with plain flags on a named file'],
  ['grep SECRETTOKEN src/a.txt', 'allow', 'allow', 'a named file is judged by its path'],
  ['rg SECRETTOKEN src/a.txt', 'allow', 'allow', 'rg on a named file'],
  ['find src -type f', 'allow', 'allow', 'find on a directory without a vault lists only names'],
  ['ls -R src', 'allow', 'allow', 'ls -R on a directory without a vault'],
  ['ls', 'allow', 'allow', 'not recursive'],
  ['cat src/a.txt', 'allow', 'allow', 'a named file'],
];

describe('commands that go through a directory tree (review finding, HIGH)', () => {
  const root = workspace();
  it.each(TABLE)('%s: %s without the OS sandbox, %s with it (%s)', async (command, none, os) => {
    const without = await decide(root, command, 'none');
    expect(without.outcome, without.why).toBe(none);
    if (none === 'ask') expect(without.why).toMatch(/sandbox = "os"/);
    expect((await decide(root, command, 'os')).outcome).toBe(os);
  });

  it('listing names asks only where a vault is inside; reading contents asks for any directory', async () => {
    expect((await decide(root, 'find . -type f', 'none', false)).outcome).toBe('allow');
    expect((await decide(root, 'grep -r SECRETTOKEN .', 'none', false)).outcome).toBe('ask');
  });

  it('executed: nobody asked, nothing denied or in a vault is ever printed, with or without the OS sandbox', async () => {
    for (const sandbox of ['none', 'os'] as const) {
      const gate = gateFor(root, sandbox);
      for (const command of ['grep -r SECRETTOKEN .', 'rg SECRETTOKEN', 'find . -type f', 'ls -R']) {
        const [r] = await gate.execute([{ id: '1', name: 'run_command', arguments: { command } }]);
        const out = r?.content ?? '';
        expect(out, `${sandbox}: ${command}`).not.toMatch(
          /pem SECRETTOKEN|key SECRETTOKEN|vault SECRETTOKEN|v\.txt/,
        );
        if (sandbox === 'none') expect(r?.error?.message ?? r?.content, command).toMatch(/denied/);
        else if (command.startsWith('grep')) expect(out).toMatch(/public SECRETTOKEN/); // ran, fenced
      }
      await gate.close();
    }
  });

  it('git history: only forms that print no file contents run without asking; executed on a repository that tracks a key and a vault (second review, HIGH)', async () => {
    const repo = workspace();
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: repo });
    git('init', '-q');
    git('add', '-f', '.');
    git('commit', '-qm', 'everything');
    writeFileSync(path.join(repo, 'src', 'a.txt'), 'changed\n');
    git('commit', '-qam', 'change');
    const blob = execFileSync('git', ['rev-parse', 'HEAD~1:sub/server.pem'], {
      cwd: repo,
      encoding: 'utf8',
    }).trim();
    const rows: [string, 'allow' | 'ask' | 'deny'][] = [
      ['git log -p', 'ask'],
      ['git log --patch --oneline', 'ask'],
      ['git log -U3', 'ask'],
      ['git log --stat', 'ask'],
      ['git show HEAD~1', 'ask'],
      ['git show HEAD:vault/deep/v.txt', 'ask'],
      // issue #29: a history read of a denied path is a read of that path: refused, even if approved.
      ['git show HEAD:sub/server.pem', 'deny'],
      ['git show', 'ask'],
      ['git diff HEAD~1 HEAD', 'ask'],
      ['git diff', 'ask'],
      ['git diff --cached', 'ask'],
      ['git log --oneline', 'allow'],
      ['git log -n 3 --format=%s', 'allow'],
      // issue #29: `git show -s <blob>` prints the blob, and a blob id cannot be told from a
      // commit id without running git: git show is off the list.
      ['git show -s HEAD', 'ask'],
      [`git show -s ${blob}`, 'ask'],
      ['git show --no-patch HEAD', 'ask'],
      ['git -P log --oneline', 'allow'],
      ['git --no-pager diff --stat HEAD~1 HEAD', 'allow'],
      ['git diff --stat HEAD~1 HEAD', 'allow'],
    ];
    for (const sandbox of ['none', 'os'] as const) {
      const gate = gateFor(repo, sandbox, false);
      for (const [command, expected] of rows) {
        expect((await decide(repo, command, sandbox, false)).outcome, `${sandbox}: ${command}`).toBe(
          expected,
        );
        const [r] = await gate.execute([{ id: '1', name: 'run_command', arguments: { command } }]);
        expect(r?.content ?? '', `${sandbox}: ${command}`).not.toMatch(
          /pem SECRETTOKEN|key SECRETTOKEN|vault SECRETTOKEN/,
        );
        // (Under the OS sandbox .git/config is unreadable, a default denial: git may fail there.)
        if (expected === 'allow' && sandbox === 'none') expect(r?.ok, `${command}: ${r?.content}`).toBe(true);
      }
      await gate.close();
    }
  });
});
