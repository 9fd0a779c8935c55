import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gateFor } from '../../../test/helpers/gate.js';
import { useWorkspace } from '../../../test/helpers/workspace.js';

describe('edit_file', () => {
  const ws = useWorkspace();
  const read = (rel: string) => readFileSync(path.join(ws.dir(), rel), 'utf8');
  async function setup(rel: string, content: string) {
    ws.file(rel, content);
    const g = gateFor(ws.dir());
    expect((await g.call('read_file', { path: rel })).ok).toBe(true);
    return g;
  }

  it('Property 13: a target that appears once is replaced', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[a-z]{0,20}$/),
        fc.stringMatching(/^[A-Z]{1,10}$/),
        fc.stringMatching(/^[a-z]{0,20}$/),
        fc.string({ maxLength: 20 }),
        async (before, target, after, replacement) => {
          const { call } = await setup('p13.txt', `${before}${target}${after}`);
          const r = await call('edit_file', { path: 'p13.txt', edits: [{ target, replacement }] });
          expect(r.ok, r.content).toBe(true);
          expect(readFileSync(path.join(ws.dir(), 'p13.txt'), 'utf8')).toBe(
            `${before}${replacement}${after}`,
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('Property 14: any target that does not appear is EditTargetNotFound and nothing is written, even after edits that matched', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.stringMatching(/^[a-y ]{0,30}$/), { minLength: 1, maxLength: 30 }),
        fc.stringMatching(/^[a-y \n]{0,20}$/),
        // Never whitespace: the matcher's later stages ignore trailing whitespace and indentation by
        // design, so a tab at the end of a target may rightly match a line without it.
        fc.constantFrom('Z', '{', 'ü', '#', '~'),
        fc.stringMatching(/^[a-y \n]{0,20}$/),
        fc.string({ maxLength: 20 }),
        fc.boolean(),
        async (lines, before, absent, after, replacement, matchedFirst) => {
          // The file never holds `absent`, so no stage of the matcher (exact, trailing whitespace,
          // indentation) can find a target that contains it.
          const content = `${lines.join('\n')}\nUNIQUE\n`;
          const { call } = await setup('p14.txt', content);
          const missing = { target: `${before}${absent}${after}`, replacement };
          const edits = matchedFirst ? [{ target: 'UNIQUE', replacement: 'DONE' }, missing] : [missing];
          const r = await call('edit_file', { path: 'p14.txt', edits });
          expect(r.ok).toBe(false);
          expect(r.error?.type).toBe('EditTargetNotFound');
          // With several edits the message names the one that failed.
          const label = edits.length > 1 ? `edit ${edits.length}: ` : '';
          expect(
            r.content.startsWith(`edit_file failed: ${label}the target text was not found in "p14.txt"`),
          ).toBe(true);
          expect(read('p14.txt')).toBe(content);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('Property 14 (example): a target that does not appear is EditTargetNotFound, showing the closest region', async () => {
    const { call } = await setup(
      'f.ts',
      'function alpha() {\n  return 1;\n}\n\nfunction beta() {\n  return 2;\n}\n',
    );
    const r = await call('edit_file', {
      path: 'f.ts',
      edits: [{ target: 'function betta() {\n  return 2;', replacement: 'x' }],
    });
    expect(r.error?.type).toBe('EditTargetNotFound');
    expect(r.content).toMatch(/closest region is at line 5/);
    expect(r.content).toMatch(/5 \| function beta\(\) \{/);
    expect(read('f.ts')).toContain('beta');
  });

  it('Property 15: a repeated target is EditTargetAmbiguous listing the lines', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.stringMatching(/^[a-z ]{0,12}$/), { maxLength: 20 }),
        fc.uniqueArray(fc.nat(25), { minLength: 2, maxLength: 6 }),
        fc.stringMatching(/^TODO[A-Z]{0,4}$/),
        async (filler, slots, target) => {
          // The target (upper case) on its own line at 2+ places among lower-case filler lines.
          const lines = [...filler];
          for (const slot of [...slots].sort((a, b) => a - b))
            lines.splice(Math.min(slot, lines.length), 0, target);
          const at = lines.flatMap((l, i) => (l === target ? [i + 1] : []));
          const content = `${lines.join('\n')}\n`;
          const { call } = await setup('p15.txt', content);
          const r = await call('edit_file', {
            path: 'p15.txt',
            edits: [{ target, replacement: 'DONE' }],
          });
          expect(r.error?.type).toBe('EditTargetAmbiguous');
          expect(r.content).toContain(`occurs ${at.length} times`);
          expect(r.content).toContain(`at lines ${at.join(', ')}`);
          expect(readFileSync(path.join(ws.dir(), 'p15.txt'), 'utf8')).toBe(content);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('line_hint picks the nearest occurrence; replace_all replaces every one', async () => {
    const { call } = await setup('h.txt', 'x\nTODO\nx\nx\nx\nTODO\n');
    expect(
      (
        await call('edit_file', {
          path: 'h.txt',
          edits: [{ target: 'TODO', replacement: 'A', line_hint: 5 }],
        })
      ).ok,
    ).toBe(true);
    expect(read('h.txt')).toBe('x\nTODO\nx\nx\nx\nA\n');
    expect(
      (
        await call('edit_file', {
          path: 'h.txt',
          edits: [{ target: 'x', replacement: 'y', replace_all: true }],
        })
      ).content,
    ).toMatch(/4 replacements/);
    expect(read('h.txt')).toBe('y\nTODO\ny\ny\ny\nA\n');
  });

  it('edits apply all or nothing', async () => {
    const { call } = await setup('all.txt', 'one\ntwo\n');
    const r = await call('edit_file', {
      path: 'all.txt',
      edits: [
        { target: 'one', replacement: 'ONE' },
        { target: 'three', replacement: 'THREE' },
      ],
    });
    expect(r.error?.type).toBe('EditTargetNotFound');
    expect(r.content).toMatch(/^edit_file failed: edit 2:/);
    expect(read('all.txt')).toBe('one\ntwo\n');
  });

  it('falls back to ignoring trailing whitespace, then indentation (re-indenting the replacement)', async () => {
    const { call } = await setup('py.py', 'def f():\n    if x:   \n        return 1\n');
    expect(
      (await call('edit_file', { path: 'py.py', edits: [{ target: 'if x:\n', replacement: 'if y:\n' }] })).ok,
    ).toBe(true);
    expect(read('py.py')).toBe('def f():\n    if y:\n        return 1\n');
    const r = await call('edit_file', {
      path: 'py.py',
      edits: [{ target: 'if y:\n    return 1', replacement: 'if z:\n    return 2\n    # done' }],
    });
    expect(r.ok, r.content).toBe(true);
    expect(read('py.py')).toBe('def f():\n    if z:\n        return 2\n        # done\n');
  });

  it('keeps CRLF line endings and a BOM', async () => {
    const { call } = await setup('w.txt', '\uFEFFa\r\nb\r\nc\r\n');
    expect(
      (await call('edit_file', { path: 'w.txt', edits: [{ target: 'b\nc', replacement: 'B\nC\nD' }] })).ok,
    ).toBe(true);
    expect(readFileSync(path.join(ws.dir(), 'w.txt')).toString('utf8')).toBe('\uFEFFa\r\nB\r\nC\r\nD\r\n');
  });

  it('needs a read first (StaleFile) and refuses a file changed since', async () => {
    ws.file('s.txt', 'a\n');
    const { call } = gateFor(ws.dir());
    expect(
      (await call('edit_file', { path: 's.txt', edits: [{ target: 'a', replacement: 'b' }] })).error?.type,
    ).toBe('StaleFile');
    await call('read_file', { path: 's.txt' });
    ws.file('s.txt', 'changed\n');
    expect(
      (await call('edit_file', { path: 's.txt', edits: [{ target: 'changed', replacement: 'b' }] })).error
        ?.type,
    ).toBe('StaleFile');
    expect(read('s.txt')).toBe('changed\n');
  });

  it('a missing file is NotFound; binary files are refused', async () => {
    const { call } = gateFor(ws.dir());
    expect(
      (await call('edit_file', { path: 'nope.txt', edits: [{ target: 'a', replacement: 'b' }] })).error?.type,
    ).toBe('NotFound');
    ws.file('bin.dat', Buffer.from([1, 0, 2]));
    await call('read_file', { path: 'bin.dat' });
    expect(
      (await call('edit_file', { path: 'bin.dat', edits: [{ target: 'a', replacement: 'b' }] })).error?.type,
    ).toBe('BadArgs');
  });
});
