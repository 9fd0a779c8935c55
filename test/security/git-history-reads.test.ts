import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #29 §5: history reads are reads of the paths they name. A repository that tracks a key,
 * a `.pem` and a vault: every git command naming one of them (REV:path, pathspecs, -L ranges,
 * pathspec magic) is refused even with every call approved, and prints nothing of it; an object
 * named by id alone that is a file (`git show -s <blob>`) asks; the rest of history still reads.
 */
const root = makeTempDir('toolgate-git-history-');
let blob = '';

beforeAll(() => {
  mkdirSync(path.join(root, 'sub'));
  mkdirSync(path.join(root, 'vault'));
  mkdirSync(path.join(root, 'src'));
  writeFileSync(path.join(root, 'id_rsa'), 'KEYSECRET\n');
  writeFileSync(path.join(root, 'sub', 'server.pem'), 'PEMSECRET\n');
  writeFileSync(path.join(root, 'vault', 'v.txt'), 'VAULTSECRET\n');
  writeFileSync(path.join(root, 'src', 'a.txt'), 'public\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      cwd: root,
      encoding: 'utf8',
    });
  git('init', '-q');
  git('add', '-f', '.');
  git('commit', '-qm', 'everything');
  writeFileSync(path.join(root, 'src', 'a.txt'), 'changed\n');
  git('commit', '-qam', 'change');
  blob = git('rev-parse', 'HEAD:sub/server.pem').trim();
});

const gate = () =>
  createToolgate({
    config: validateConfig({
      tools: {
        approval: { denylist: [] },
        run_command: { allow: ['git show', 'git log', 'git cat-file', 'git diff', 'git grep', 'git blame'] },
        vault: { roots: [path.join(root, 'vault')] },
      },
    }),
    roots: [root],
    approver: approveAll,
  });

async function outcome(command: string) {
  const g = gate();
  const call = { id: '1', name: 'run_command', arguments: { command } };
  await g.prepare([call]);
  const [planned] = g.plan([call]);
  const [result] = await g.execute([call]);
  await g.close();
  const kind = planned?.disposition.kind;
  return {
    decision: kind === 'execute' ? 'allow' : kind === 'needs_approval' ? 'ask' : 'deny',
    content: result?.content ?? '',
  };
}

const REFUSED = [
  'git show HEAD:sub/server.pem',
  'git show HEAD~1:id_rsa',
  'git show -s HEAD:id_rsa',
  'git cat-file -p HEAD:sub/server.pem',
  'git cat-file blob HEAD:vault/v.txt',
  'git show HEAD:vault/v.txt',
  'git show :id_rsa',
  'git log -p -- sub/server.pem',
  'git log -p --follow -- id_rsa',
  'git diff HEAD~1 HEAD -- id_rsa',
  'git grep SECRET HEAD -- sub/server.pem',
  'git blame id_rsa',
  'git log -L 1,1:id_rsa',
  'git log -L 1,1:vault/v.txt --oneline',
  "git log -p -- ':(icase)ID_RSA'",
  "git log -p -- ':/sub/server.pem'",
  'git show HEAD:./id_rsa',
];

describe('issue #29 §5: git history reads of denied paths and vaults are refused', () => {
  for (const command of REFUSED) {
    it(`refuses \`${command}\` even approved, printing nothing of it`, async () => {
      const { decision, content } = await outcome(command);
      expect(decision, content).toBe('deny');
      expect(content).not.toMatch(/KEYSECRET|PEMSECRET|VAULTSECRET/);
    });
  }

  it('`git show -s <blob id>` and `git cat-file -p <blob id>` ask: an id alone says nothing of the path', async () => {
    for (const command of [`git show -s ${blob}`, `git cat-file -p ${blob}`, 'git cat-file --batch']) {
      const g = gate();
      const call = { id: '1', name: 'run_command', arguments: { command } };
      await g.prepare([call]);
      expect(g.plan([call])[0]?.disposition.kind, command).toBe('needs_approval');
      await g.close();
    }
  });

  it('the rest of history reads without asking where a rule allows it', async () => {
    for (const [command, shows] of [
      ['git show HEAD:src/a.txt', 'changed'],
      ['git log -p --format=%s -- src/a.txt', 'change'],
      ['git show -s --format=%s HEAD', 'change'],
      ['git grep -n public HEAD~1 -- src', 'public'],
    ] as const) {
      const { decision, content } = await outcome(command);
      expect(decision, `${command}: ${content}`).toBe('allow');
      expect(content).toContain(shows);
    }
  });
});
