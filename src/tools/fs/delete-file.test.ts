import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gateFor } from '../../../test/helpers/gate.js';
import { makeTempDir, useWorkspace } from '../../../test/helpers/workspace.js';
import { validateConfig } from '../../config/load-config.js';
import { createToolgate } from '../../toolgate.js';

describe('delete_file', () => {
  const ws = useWorkspace();

  it('is privileged: it always asks (denied without an approver)', async () => {
    ws.file('a.txt', 'x');
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { mode: 'auto', allowlist: ['delete_file'] } } }),
      roots: [ws.dir()],
    });
    const [r] = await gate.execute([{ id: '1', name: 'delete_file', arguments: { path: 'a.txt' } }]);
    expect(r?.error?.type).toBe('Denied');
    expect(existsSync(path.join(ws.dir(), 'a.txt'))).toBe(true);
    const plan = gate.plan([{ id: '1', name: 'delete_file', arguments: { path: 'a.txt' } }]);
    expect(plan[0]?.disposition.kind === 'needs_approval' && plan[0].disposition.request.risk).toBe('high');
  });

  it('deletes a file; a directory needs recursive', async () => {
    ws.file('f.txt', 'x');
    ws.file('d/e/g.txt', 'y');
    const { call } = gateFor(ws.dir());
    expect((await call('delete_file', { path: 'f.txt' })).content).toBe('deleted: f.txt');
    const noRec = await call('delete_file', { path: 'd' });
    expect(noRec.error?.type).toBe('BadArgs');
    expect(noRec.content).toMatch(/recursive: true/);
    expect((await call('delete_file', { path: 'd', recursive: true })).content).toBe(
      'deleted: directory d (3 entries)',
    );
    expect(existsSync(path.join(ws.dir(), 'd'))).toBe(false);
  });

  it('refuses a root itself', async () => {
    const { call } = gateFor(ws.dir());
    for (const p of ['.', './', ws.dir()]) {
      const r = await call('delete_file', { path: p, recursive: true });
      expect(r.ok).toBe(false);
    }
    expect(existsSync(ws.dir())).toBe(true);
  });

  it('removes a symlink itself, never its target (inside or outside)', async () => {
    const outside = makeTempDir();
    writeFileSync(path.join(outside, 'keep.txt'), 'outside');
    ws.file('real.txt', 'inside');
    symlinkSync(path.join(ws.dir(), 'real.txt'), path.join(ws.dir(), 'in-link'));
    symlinkSync(outside, path.join(ws.dir(), 'out-link'));
    const { call } = gateFor(ws.dir());
    expect((await call('delete_file', { path: 'in-link' })).content).toBe('deleted: symlink in-link');
    expect(readFileSync(path.join(ws.dir(), 'real.txt'), 'utf8')).toBe('inside');
    expect((await call('delete_file', { path: 'out-link', recursive: true })).content).toBe(
      'deleted: symlink out-link',
    );
    expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('outside');
  });

  it('a recursive delete does not follow symlinks inside the tree', async () => {
    const outside = makeTempDir();
    writeFileSync(path.join(outside, 'keep.txt'), 'outside');
    ws.file('tree/a.txt', 'a');
    symlinkSync(outside, path.join(ws.dir(), 'tree', 'escape'));
    const { call } = gateFor(ws.dir());
    expect((await call('delete_file', { path: 'tree', recursive: true })).ok).toBe(true);
    expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('outside');
  });

  it('a missing path is NotFound', async () => {
    const { call } = gateFor(ws.dir());
    expect((await call('delete_file', { path: 'nope' })).error?.type).toBe('NotFound');
  });
});
