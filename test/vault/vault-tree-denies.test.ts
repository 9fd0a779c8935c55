import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * A vault tree copy judges every path it would create in the workspace, not only the destination
 * root (issue #30 §11): a tree copied to `X/.git` would plant `X/.git/config`, which the user's
 * next `git status` obeys. The copy is refused whole and nothing is written, not even a temporary.
 */
function setup(tree: Record<string, string>, tools: Record<string, unknown> = {}) {
  const base = makeTempDir('toolgate-vault-denies-');
  const root = path.join(base, 'work');
  const vault = path.join(base, 'vault');
  mkdirSync(root, { recursive: true });
  for (const [rel, text] of Object.entries(tree)) {
    mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
    writeFileSync(path.join(vault, rel), text);
  }
  const gate = createToolgate({
    config: validateConfig({ tools: { vault: { roots: [vault] }, ...tools } }),
    roots: [root],
    approver: approveAll,
  });
  const call = async (args: Record<string, unknown>): Promise<ToolResult> => {
    const [r] = await gate.execute([{ id: 'v', name: 'vault_copyto', arguments: args }]);
    if (!r) throw new Error('no result');
    return r;
  };
  /** Everything under the workspace, as relative paths (a leftover temporary included). */
  const written = () =>
    execFileSync('find', ['.', '-mindepth', '1'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  return { root, call, written };
}

const HOSTILE_CONFIG = '[core]\n\tfsmonitor = touch /tmp/planted-by-vault\n';

describe('issue #30 §11: vault tree copies judge every destination path', () => {
  it('issue #30 §11: a tree copied to X/.git (its config, its hooks) is refused whole; nothing is written', async () => {
    const { root, call, written } = setup({
      'repo/config': HOSTILE_CONFIG,
      'repo/hooks/pre-commit': '#!/bin/sh\ntouch /tmp/planted\n',
      'repo/description': 'harmless\n',
    });
    mkdirSync(path.join(root, 'X'));
    const r = await call({ source: 'repo', destination: 'X/.git' });
    expect(r.ok, r.content).toBe(false);
    expect(r.error?.type).toBe('SandboxViolation');
    expect(r.content).toMatch(/X\/\.git/);
    expect(written()).toEqual(['./X']);
  });

  it('issue #30 §11: a tree whose inner paths are denied in the workspace (git internals, a gitfile, an anchored pattern) is refused before anything is written', async () => {
    const cases: [Record<string, string>, string, string][] = [
      // Inside a real repository's .git: new directories git reads config from.
      [
        { 'pkg/config': HOSTILE_CONFIG, 'pkg/HEAD': 'ref: refs/heads/main\n' },
        'X/.git/modules/evil',
        '.git/modules/evil/config',
      ],
      [
        { 'pkg/commondir': '../..\n', 'pkg/gitdir': '/tmp/x\n' },
        'X/.git/worktrees/w',
        '.git/worktrees/w/commondir',
      ],
      // A gitfile deep in the tree points git, run there, at another repository's config.
      [{ 'pkg/a.txt': 'a', 'pkg/sub/.git': 'gitdir: /tmp/elsewhere\n' }, 'dest', 'dest/sub/.git'],
      // A pattern anchored at the workspace root names nothing inside the vault.
      [{ 'pkg/a.txt': 'a', 'pkg/prod/key.txt': 'k' }, 'config', 'config/prod'],
    ];
    for (const [tree, destination, named] of cases) {
      const { root, call, written } = setup(tree, { sandbox: { denied_patterns: ['config/prod/**'] } });
      mkdirSync(path.join(root, 'X'));
      execFileSync('git', ['init', '-q'], { cwd: path.join(root, 'X') });
      const before = written();
      const r = await call({ source: 'pkg', destination });
      expect(r.ok, `${destination}: ${r.content}`).toBe(false);
      expect(r.error?.type).toBe('SandboxViolation');
      expect(r.content).toContain(named);
      expect(r.content).toContain('nothing was copied');
      expect(written()).toEqual(before);
    }
  });

  it('issue #30 §11: a tree with nothing denied at its destination is still copied whole', async () => {
    const { root, call } = setup({ 'pkg/a.txt': 'a', 'pkg/deep/b.txt': 'b' });
    const r = await call({ source: 'pkg', destination: 'copy' });
    expect(r.ok, r.content).toBe(true);
    expect(readdirSync(path.join(root, 'copy')).sort()).toEqual(['a.txt', 'deep']);
  });
});
