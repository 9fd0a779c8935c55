import { existsSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { type Approver, approveAll } from '../../src/core/confirmation.js';
import type { ToolCall } from '../../src/core/tool-call.js';
import { createToolgate } from '../../src/toolgate.js';
import { snapshotTree } from '../helpers/tree.js';
import { attackPaths, LITERAL_PATHS, makeAttackWorld, SECRET } from './attack-setup.js';

/** Every path-taking tool, with the arguments that point it at `p`. */
const TOOLS: Record<string, (p: string) => Record<string, unknown>> = {
  read_file: (p) => ({ path: p }),
  read_many_files: (p) => ({ paths: [p] }),
  list_directory: (p) => ({ path: p, depth: 2, include_hidden: true }),
  glob: (p) => ({ path: p, pattern: '**/*', include_hidden: true }),
  grep: (p) => ({ path: p, pattern: 'SECRET' }),
  write_file: (p) => ({ path: p, content: 'PWNED', overwrite: true }),
  edit_file: (p) => ({ path: p, edits: [{ target: 'TOP', replacement: 'PWNED' }] }),
  apply_patch: (p) => ({
    patch: `*** Begin Patch\n*** Update File: ${p}\n@@\n-${SECRET}\n+PWNED\n*** End Patch`,
  }),
  apply_patch_add: (p) => ({ patch: `*** Begin Patch\n*** Add File: ${p}\n+PWNED\n*** End Patch` }),
  apply_patch_move: (p) => ({
    patch: `*** Begin Patch\n*** Update File: inside.txt\n*** Move to: ${p}\n@@\n-inside\n+PWNED\n*** End Patch`,
  }),
  delete_file: (p) => ({ path: p, recursive: true }),
};

function gate(root: string, sandbox: Record<string, unknown> = {}) {
  return createToolgate({
    config: validateConfig({ tools: { sandbox, approval: { mode: 'auto' } } }),
    roots: [root],
    approver: approveAll,
  });
}

function callFor(tool: string, p: string, id: string): ToolCall {
  return {
    id,
    name: tool.startsWith('apply_patch') ? 'apply_patch' : tool,
    arguments: (TOOLS[tool] as (p: string) => Record<string, unknown>)(p),
  };
}

describe('security: every path tool against every escape (disk checked after each)', () => {
  for (const allowAbsolute of [false, true]) {
    it(`no escape reads, writes or deletes outside (allow_absolute = ${allowAbsolute})`, async () => {
      const paths = attackPaths(makeAttackWorld());
      let n = 0;
      for (const [index] of paths.entries()) {
        // A fresh world per path: a successful deletion of a link must not weaken the next case.
        const world = makeAttackWorld();
        const p = attackPaths(world)[index] as string;
        const before = world.outsideState();
        const g = gate(world.root, { allow_absolute: allowAbsolute });
        for (const tool of Object.keys(TOOLS)) {
          const [r] = await g.execute([callFor(tool, p, `c${n++}`)]);
          const label = `${tool} ${JSON.stringify(p)}`;
          expect(r, label).toBeDefined();
          expect(r?.content, label).not.toContain(SECRET);
          if (r?.ok) {
            // Only harmless outcomes may succeed: a listing with nothing outside in it, or removing
            // a link that lives in the root (its target is checked below, untouched).
            expect(['list_directory', 'glob', 'grep', 'delete_file'], label).toContain(tool);
            if (tool === 'delete_file') expect(r.content, label).toMatch(/^deleted: symlink /);
          } else {
            expect(['SandboxViolation', 'BadArgs', 'NotFound', 'PatchFailed', 'StaleFile'], label).toContain(
              r?.error?.type,
            );
          }
          expect(world.outsideState(), label).toEqual(before);
          expect(existsSync(path.join(world.outside, 'created-through-dangling.txt')), label).toBe(false);
        }
        expect(readFileSync(path.join(world.root, 'inside.txt'), 'utf8')).toBe('inside\n');
      }
    }, 120_000);
  }

  it('literal names are never decoded or expanded: they stay inside the root', async () => {
    const world = makeAttackWorld();
    const before = world.outsideState();
    const g = gate(world.root);
    let n = 0;
    for (const p of LITERAL_PATHS) {
      for (const tool of ['read_file', 'list_directory', 'edit_file', 'delete_file']) {
        const [r] = await g.execute([callFor(tool, p, `l${n++}`)]);
        expect(r?.ok, `${tool} ${p}`).toBe(false);
        expect(r?.error?.type, `${tool} ${p}`).toMatch(/NotFound|SandboxViolation/);
      }
      const [w] = await g.execute([callFor('write_file', p, `w${n++}`)]);
      if (w?.ok) {
        // Written as a literal name under the root, nowhere else.
        expect(readFileSync(path.join(world.root, p), 'utf8')).toBe('PWNED');
      }
    }
    expect(world.outsideState()).toEqual(before);
    expect(existsSync(path.join(process.env.HOME ?? '/root', 'secret.txt'))).toBe(false);
  });

  it('a hardlink to an outside file: writes, edits and patches never change the outside inode', async () => {
    const world = makeAttackWorld();
    const g = gate(world.root);
    const [read] = await g.execute([{ id: 'r', name: 'read_file', arguments: { path: 'hard.txt' } }]);
    expect(read?.ok).toBe(true);
    const steps: [string, Record<string, unknown>][] = [
      ['edit_file', { path: 'hard.txt', edits: [{ target: 'TOP', replacement: 'EDITED' }] }],
      [
        'apply_patch',
        {
          patch:
            '*** Begin Patch\n*** Update File: hard.txt\n@@\n-EDITED-SECRET-OUTSIDE-CONTENT\n+PATCHED\n*** End Patch',
        },
      ],
      ['write_file', { path: 'hard.txt', content: 'WRITTEN', overwrite: true }],
    ];
    for (const [tool, args] of steps) {
      const [r] = await g.execute([{ id: tool, name: tool, arguments: args }]);
      expect(r?.ok, `${tool}: ${r?.content}`).toBe(true);
      expect(readFileSync(path.join(world.outside, 'secret.txt'), 'utf8')).toBe(`${SECRET}\n`);
    }
    expect(readFileSync(path.join(world.root, 'hard.txt'), 'utf8')).toBe('WRITTEN');
  });

  it('FIFOs and devices are refused without hanging', async () => {
    const world = makeAttackWorld();
    const g = gate(world.root);
    const specials = ['fifo', ...(world.device ? ['devnull'] : [])];
    for (const p of specials) {
      for (const tool of ['read_file', 'read_many_files', 'grep', 'edit_file', 'write_file']) {
        const [r] = await g.execute([callFor(tool, p, `${tool}-${p}`)]);
        if (tool === 'read_many_files') expect(r?.content).toMatch(/\[error: BadArgs/);
        else expect(r?.ok, `${tool} ${p}`).toBe(false);
      }
    }
    expect(snapshotTree(world.outside).size).toBe(1);
  }, 30_000);

  it('huge trees are capped, not walked without end', async () => {
    const world = makeAttackWorld();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    for (let d = 0; d < 40; d++) {
      mkdirSync(path.join(world.root, 'big', `d${d}`), { recursive: true });
      for (let f = 0; f < 60; f++)
        writeFileSync(path.join(world.root, 'big', `d${d}`, `f${f}.txt`), 'needle\n');
    }
    const g = gate(world.root);
    const [ls, gl, gr] = await g.execute([
      { id: '1', name: 'list_directory', arguments: { path: 'big', depth: 5 } },
      { id: '2', name: 'glob', arguments: { pattern: '**/*.txt', max_results: 100 } },
      { id: '3', name: 'grep', arguments: { pattern: 'needle', max_results: 50 } },
    ]);
    expect(JSON.parse(ls?.content ?? '{}').truncated).toBe(true);
    expect(Number(/\[(\d+) more not shown/.exec(gl?.content ?? '')?.[1])).toBeGreaterThanOrEqual(2300);
    expect(gr?.content.split('\n').filter((l) => l.includes(': needle'))).toHaveLength(50);
    expect(gr?.content).toMatch(/more matches not shown/);
  });

  it('the model cannot reach its own policy or journal by any spelling', async () => {
    const world = makeAttackWorld();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    writeFileSync(path.join(world.root, 'toolgate.toml'), '[tools]\n');
    mkdirSync(path.join(world.root, '.toolgate'));
    writeFileSync(path.join(world.root, '.toolgate', 'journal.db'), 'db');
    const g = gate(world.root);
    const before = snapshotTree(world.root);
    for (const p of [
      'toolgate.toml',
      './toolgate.toml',
      'sub/../toolgate.toml',
      '.toolgate',
      '.toolgate/journal.db',
      'in-link/../toolgate.toml',
    ]) {
      for (const tool of ['read_file', 'write_file', 'edit_file', 'apply_patch_add', 'delete_file']) {
        const [r] = await g.execute([callFor(tool, p, `${tool}${p}`)]);
        expect(r?.ok, `${tool} ${p}`).toBe(false);
      }
    }
    const [globbed] = await g.execute([
      { id: 'g', name: 'glob', arguments: { pattern: '**/*', include_hidden: true } },
    ]);
    expect(globbed?.content).not.toMatch(/toolgate\.toml|\.toolgate\//);
    expect(snapshotTree(world.root)).toEqual(before);
  });

  it('a directory swapped for a link while the call waits for approval: what runs is what was approved, or nothing', async () => {
    const world = makeAttackWorld();
    writeFileSync(path.join(world.root, 'sub', 'secret.txt'), 'inside copy\n');
    // The person is asked; meanwhile an attacker turns sub/ into a link to the outside.
    const swapWhileAsking: Approver = async () => {
      renameSync(path.join(world.root, 'sub'), path.join(world.root, 'sub-moved'));
      symlinkSync(world.outside, path.join(world.root, 'sub'));
      return { kind: 'approve_all' };
    };
    const g = createToolgate({
      config: validateConfig({ tools: { policy: { rules: [{ tool: 'read_file', action: 'ask' }] } } }),
      roots: [world.root],
      approver: swapWhileAsking,
    });
    const [r] = await g.execute([{ id: 'r', name: 'read_file', arguments: { path: 'sub/secret.txt' } }]);
    expect(r?.content).not.toContain(SECRET);
    expect(r?.error?.type).toBe('SandboxViolation');
  });
});
