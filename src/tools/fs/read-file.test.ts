import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTempDir, useWorkspace } from '../../../test/helpers/workspace.js';
import { validateConfig } from '../../config/load-config.js';
import { approveAll } from '../../core/confirmation.js';
import type { ToolResult } from '../../core/tool-result.js';
import { createToolgate } from '../../toolgate.js';

describe('read_file (FR-TOOL-READ-01)', () => {
  const ws = useWorkspace();
  const gate = (tools: Record<string, unknown> = {}) =>
    createToolgate({ config: validateConfig({ tools }), roots: [ws.dir()], approver: approveAll });
  const read = async (
    args: Record<string, unknown>,
    tools: Record<string, unknown> = {},
  ): Promise<ToolResult> => {
    const [r] = await gate(tools).execute([{ id: '1', name: 'read_file', arguments: args }]);
    if (!r) throw new Error('no result');
    return r;
  };

  it('Property 6: content written is read back unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 2000 }), async (content) => {
        ws.file('rt.txt', content);
        const r = await read({ path: 'rt.txt' });
        expect(r.ok).toBe(true);
        expect(r.content).toBe(content);
      }),
      { numRuns: 100 },
    );
  });

  it('Property 7 / T-READ-01: a line range returns exactly those lines, inclusive', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.stringMatching(/^[^\n]{0,20}$/), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        fc.nat(45),
        fc.nat(10),
        async (lines, trailingNewline, startSeed, span) => {
          const text = lines.join('\n') + (trailingNewline ? '\n' : '');
          ws.file('lines.txt', text);
          // Oracle: a line is its text plus its own newline; a final newline does not start a line.
          const stored = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
          const start = (startSeed % Math.max(stored.length, 1)) + 1;
          const end = start + span;
          const r = await read({ path: 'lines.txt', start_line: start, end_line: end });
          expect(r.ok).toBe(true);
          expect(r.content).toBe(stored.slice(start - 1, end).join(''));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('T-READ-01: invalid ranges are BadArgs; end past EOF reads to EOF; start past EOF says how long the file is', async () => {
    ws.file('f.txt', 'a\nb\nc\n');
    expect((await read({ path: 'f.txt', start_line: 3, end_line: 2 })).error?.type).toBe('BadArgs');
    expect((await read({ path: 'f.txt', start_line: 0 })).error?.type).toBe('BadArgs');
    expect((await read({ path: 'f.txt', end_line: -1 })).error?.type).toBe('BadArgs');
    expect((await read({ path: 'f.txt', start_line: 1.5 })).error?.type).toBe('BadArgs');
    expect((await read({ path: 'f.txt', start_line: 2, end_line: 99 })).content).toBe('b\nc\n');
    expect((await read({ path: 'f.txt', end_line: 1 })).content).toBe('a\n');
    const past = await read({ path: 'f.txt', start_line: 9 });
    expect(past.error?.type).toBe('BadArgs');
    expect(past.content).toMatch(/has 3 lines/);
  });

  it('keeps CRLF line endings in ranges', async () => {
    ws.file('crlf.txt', 'a\r\nb\r\nc');
    expect((await read({ path: 'crlf.txt', start_line: 2, end_line: 3 })).content).toBe('b\r\nc');
  });

  it('T-READ-02: the scan limit is enforced with a message to narrow the range', async () => {
    ws.file('big.txt', `${'x'.repeat(99)}\n`.repeat(500)); // 50 000 bytes
    const limited = { read_file: { max_scan_bytes: 10_000 } };
    const far = await read({ path: 'big.txt', start_line: 400, end_line: 401 }, limited);
    expect(far.error?.type).toBe('LimitExceeded');
    expect(far.content).toMatch(/narrower or earlier range/);
    const near = await read({ path: 'big.txt', start_line: 2, end_line: 3 }, limited);
    expect(near.ok).toBe(true);
    // A file exactly at the cap is not over it.
    ws.file('exact.txt', 'y\n'.repeat(5000));
    expect((await read({ path: 'exact.txt', start_line: 5000 }, limited)).content).toBe('y\n');
  });

  it('a file over max_file_read_bytes without a range asks for a range', async () => {
    ws.file('big.txt', 'z'.repeat(3000));
    const r = await read({ path: 'big.txt' }, { read_file: { max_file_read_bytes: 1000 } });
    expect(r.error?.type).toBe('LimitExceeded');
    expect(r.content).toMatch(/start_line and end_line/);
  });

  it('binary: NUL or invalid UTF-8 gives base64, self-limited within the output limit', async () => {
    const bytes = randomBytes(5000);
    bytes[10] = 0;
    writeFileSync(path.join(ws.dir(), 'bin.dat'), bytes);
    const small = await read({ path: 'bin.dat' }, { output: { max_bytes: 1000 } });
    expect(small.ok).toBe(true);
    expect(small.content.startsWith('[binary:base64][truncated]\n')).toBe(true);
    expect(Buffer.byteLength(small.content)).toBeLessThanOrEqual(1000);
    const b64 = small.content.split('\n')[1] ?? '';
    expect(bytes.subarray(0, Buffer.from(b64, 'base64').length).equals(Buffer.from(b64, 'base64'))).toBe(
      true,
    );
    const whole = await read({ path: 'bin.dat' });
    expect(whole.content).toBe(`[binary:base64]\n${bytes.toString('base64')}`);
    writeFileSync(path.join(ws.dir(), 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect((await read({ path: 'latin1.txt' })).content.startsWith('[binary:base64]')).toBe(true);
    expect((await read({ path: 'bin.dat', start_line: 1 })).error?.type).toBe('BadArgs');
  });

  it('a multi-byte character cut at the 8 KB sniff boundary is still text', async () => {
    ws.file('utf8.txt', `${'a'.repeat(8191)}é${'b'.repeat(100)}`);
    const r = await read({ path: 'utf8.txt' });
    expect(r.content.startsWith('[binary')).toBe(false);
  });

  it('Property 8: any path that does not exist is NotFound, named relative to the root, and nothing is created', async () => {
    // Seed 001's 'FileNotFoundError' is `NotFound` in DESIGN §2.1's ToolErrorType.
    // No dots: a name like `x.pem` is denied by default, which is checked before existence.
    const name = fc.stringMatching(/^[a-z0-9][a-z0-9 _-]{0,8}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.array(name, { minLength: 1, maxLength: 3 }), { maxLength: 6 }),
        fc.nat(),
        fc.array(name, { minLength: 1, maxLength: 3 }),
        async (files, pick, tail) => {
          const root = makeTempDir('toolgate-p8-');
          try {
            for (const parts of files) {
              try {
                mkdirSync(path.join(root, ...parts.slice(0, -1)), { recursive: true });
                writeFileSync(path.join(root, ...parts), 'x');
              } catch {
                // a name already taken by a file, or by a directory: the tree stays valid without it
              }
            }
            // Somewhere that exists (the root or a directory of the tree), then names never created.
            // A directory as made, not as meant: a name taken by a file first stays a file.
            const dirs = [
              '',
              ...files
                .filter((f) => f.length > 1)
                .map((f) => f.slice(0, -1).join('/'))
                .filter((d) => {
                  try {
                    return statSync(path.join(root, d)).isDirectory();
                  } catch {
                    return false; // missing, or under a name that is a file (ENOTDIR)
                  }
                }),
            ];
            const base = dirs[pick % dirs.length] as string;
            const missing = [base, ...tail.map((t) => `missing_${t}`)].filter(Boolean).join('/');
            const before = readdirSync(root, { recursive: true }).sort();
            const gate = createToolgate({ config: validateConfig({}), roots: [root], approver: approveAll });
            const [r] = await gate.execute([{ id: '1', name: 'read_file', arguments: { path: missing } }]);
            expect(r?.ok).toBe(false);
            expect(r?.error?.type).toBe('NotFound');
            expect(r?.content).toBe(`read_file failed: "${missing}" does not exist`);
            expect(r?.content).not.toContain(root);
            expect(readdirSync(root, { recursive: true }).sort()).toEqual(before);
          } finally {
            rmSync(root, { recursive: true, force: true });
          }
        },
      ),
      // The example: a CI dry run's counterexample (a file `c`, then `c/a/a` under it: ENOTDIR).
      { numRuns: 100, examples: [[[['c'], ['c', 'a', 'a']], 0, ['0']]] },
    );
  });

  it('Property 8 (examples): a missing file is NotFound; a directory says to use list_directory', async () => {
    expect((await read({ path: 'missing.txt' })).error?.type).toBe('NotFound');
    ws.file('d/x', '');
    const dir = await read({ path: 'd' });
    expect(dir.error?.type).toBe('BadArgs');
    expect(dir.content).toMatch(/list_directory/);
  });

  it('an empty file reads as empty text', async () => {
    ws.file('empty.txt', '');
    expect(await read({ path: 'empty.txt' })).toMatchObject({ ok: true, content: '' });
  });
});

describe('read_file and the read-before-write guard', () => {
  const ws = useWorkspace();
  it('a ranged read (start, middle or end of a large file) records the hash of the whole file', async () => {
    const content = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n');
    for (const [start, end] of [
      [1, 2],
      [9_000, 9_010],
      [19_990, 20_000],
    ] as const) {
      ws.file('big.txt', content);
      const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()], approver: approveAll });
      const [read, edit] = await gate.execute([
        { id: 'r', name: 'read_file', arguments: { path: 'big.txt', start_line: start, end_line: end } },
        {
          id: 'e',
          name: 'edit_file',
          arguments: { path: 'big.txt', edits: [{ target: 'line 19999', replacement: 'LAST' }] },
        },
      ]);
      expect(read?.ok).toBe(true);
      expect(edit?.ok, edit?.content).toBe(true);
    }
  });
});
