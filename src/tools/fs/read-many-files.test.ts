import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gateFor } from '../../../test/helpers/gate.js';
import { useWorkspace } from '../../../test/helpers/workspace.js';

describe('read_many_files', () => {
  const ws = useWorkspace();

  it('Property 9: each file appears as a header followed by its content', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 6 }),
        fc.array(fc.stringMatching(/^[^\u0000]{0,40}$/), { minLength: 6, maxLength: 6 }),
        async (names, contents) => {
          for (const [i, n] of names.entries()) ws.file(`${n}.txt`, contents[i] as string);
          const { call } = gateFor(ws.dir());
          const r = await call('read_many_files', { paths: names.map((n) => `${n}.txt`) });
          expect(r.ok).toBe(true);
          let at = 0;
          names.forEach((n, i) => {
            const block = `--- ${n}.txt ---\n${contents[i]}`;
            const found = r.content.indexOf(block, at);
            expect(found).toBeGreaterThanOrEqual(at);
            at = found + block.length;
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a failing file shows its error without failing the others', async () => {
    ws.file('ok.txt', 'fine');
    ws.file('dir/x', '');
    const { call } = gateFor(ws.dir());
    const r = await call('read_many_files', { paths: ['missing.txt', 'ok.txt', 'dir'] });
    expect(r.ok).toBe(true);
    expect(r.content).toContain('--- missing.txt ---\n[error: NotFound:');
    expect(r.content).toContain('--- ok.txt ---\nfine\n');
    expect(r.content).toContain('--- dir ---\n[error: BadArgs:');
  });

  it('one total cap: files that do not fit are named, never cut mid-file', async () => {
    for (let i = 0; i < 5; i++) ws.file(`f${i}.txt`, `${String(i).repeat(400)}\n`);
    const { call } = gateFor(ws.dir(), { output: { max_bytes: 1500 } });
    const r = await call('read_many_files', { paths: [0, 1, 2, 3, 4].map((i) => `f${i}.txt`) });
    expect(Buffer.byteLength(r.content)).toBeLessThanOrEqual(1500);
    expect(r.content).toMatch(/file\(s\) not shown to stay within the output limit: .*f4\.txt/);
    expect(r.content).not.toMatch(/output truncated/);
  });

  it('reading counts for the read-before-write guard', async () => {
    ws.file('a.txt', 'a\n');
    const { call } = gateFor(ws.dir());
    await call('read_many_files', { paths: ['a.txt'] });
    expect((await call('edit_file', { path: 'a.txt', edits: [{ target: 'a', replacement: 'b' }] })).ok).toBe(
      true,
    );
  });
});
