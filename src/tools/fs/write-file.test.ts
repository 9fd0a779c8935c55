import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTempDir, useWorkspace } from '../../../test/helpers/workspace.js';
import { validateConfig } from '../../config/load-config.js';
import { approveAll } from '../../core/confirmation.js';
import { createToolgate } from '../../toolgate.js';

describe('write_file', () => {
  const ws = useWorkspace();
  const write = async (args: Record<string, unknown>) => {
    const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()], approver: approveAll });
    const [r] = await gate.execute([{ id: '1', name: 'write_file', arguments: args }]);
    if (!r) throw new Error('no result');
    return r;
  };

  it('creates a file and reports it', async () => {
    const r = await write({ path: 'new.txt', content: 'hello' });
    expect(r).toMatchObject({ ok: true, content: 'created: new.txt (5 bytes)' });
    expect(readFileSync(path.join(ws.dir(), 'new.txt'), 'utf8')).toBe('hello');
  });

  it('Property 10: an existing file without overwrite is AlreadyExists and unchanged', async () => {
    // Seed 001's 'FileExistsError' is `AlreadyExists` in DESIGN §2.1's ToolErrorType.
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string(), async (before, after) => {
        ws.file('exists.txt', before);
        const r = await write({ path: 'exists.txt', content: after });
        expect(r.error?.type).toBe('AlreadyExists');
        expect(readFileSync(path.join(ws.dir(), 'exists.txt'), 'utf8')).toBe(before);
      }),
      { numRuns: 100 },
    );
  });

  it('Property 11: overwrite replaces the content', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string({ unit: 'grapheme' }), async (before, after) => {
        ws.file('o.txt', before);
        const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()], approver: approveAll });
        const [, r] = await gate.execute([
          { id: 'r', name: 'read_file', arguments: { path: 'o.txt' } },
          { id: 'w', name: 'write_file', arguments: { path: 'o.txt', content: after, overwrite: true } },
        ]);
        if (!r) throw new Error('no result');
        expect(r.ok).toBe(true);
        expect(readFileSync(path.join(ws.dir(), 'o.txt'), 'utf8')).toBe(after);
      }),
      { numRuns: 100 },
    );
  });

  it('Property 12: missing parent directories are created', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 5 }),
        async (dirs) => {
          const root = makeTempDir('toolgate-p12-');
          try {
            const rel = `${dirs.join('/')}/f.txt`;
            const gate = createToolgate({ config: validateConfig({}), roots: [root], approver: approveAll });
            const [r] = await gate.execute([
              { id: '1', name: 'write_file', arguments: { path: rel, content: rel } },
            ]);
            expect(r?.ok).toBe(true);
            expect(readFileSync(path.join(root, rel), 'utf8')).toBe(rel);
          } finally {
            rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('overwriting needs a read of the file in this session (read-before-write guard)', async () => {
    ws.file('unread.txt', 'precious');
    const r = await write({ path: 'unread.txt', content: 'x', overwrite: true });
    expect(r.error?.type).toBe('StaleFile');
    expect(readFileSync(path.join(ws.dir(), 'unread.txt'), 'utf8')).toBe('precious');
  });

  it('cannot write toolgate.toml or .toolgate/ (its own policy and state)', async () => {
    expect((await write({ path: 'toolgate.toml', content: '[tools]' })).error?.type).toBe('SandboxViolation');
    expect((await write({ path: '.toolgate/journal.db', content: 'x' })).error?.type).toBe(
      'SandboxViolation',
    );
  });

  it('without an approver, a write is denied (side effects ask; unanswered is a denial)', async () => {
    const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()] });
    const [r] = await gate.execute([
      { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
    ]);
    expect(r?.error?.type).toBe('Denied');
  });
});
