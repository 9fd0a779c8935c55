import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { displayName } from '../../src/tools/fs/list-directory.js';
import { makeTempDir } from '../helpers/workspace.js';

/** Issue #13 item 12: a file name that is not valid UTF-8 is listed (escaped), never fatal. */
describe('names that are not UTF-8 (issue #13)', () => {
  it('list_directory lists the directory, the odd name escaped and its size read by its real bytes', async () => {
    const root = makeTempDir('toolgate-names-');
    writeFileSync(
      Buffer.concat([Buffer.from(`${root}/bad`), Buffer.from([0xff, 0xfe]), Buffer.from('name.txt')]),
      'xyz',
    );
    writeFileSync(path.join(root, 'ok.txt'), '');
    const gate = createToolgate({ config: validateConfig({}), roots: [root], approver: approveAll });
    const [r] = await gate.execute([{ id: '1', name: 'list_directory', arguments: { path: '.' } }]);
    expect(r?.ok).toBe(true);
    expect(JSON.parse(r?.content ?? '{}').entries).toEqual([
      { name: 'bad\\xff\\xfename.txt', type: 'file', size: 3 },
      { name: 'ok.txt', type: 'file', size: 0 },
    ]);
  });

  it('displayName: valid UTF-8 is unchanged; otherwise only the bytes that are no character are escaped', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(displayName(Buffer.from(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
    // Reading the escapes back gives the original bytes (names without a backslash of their own).
    const bytesOf = (shown: string) =>
      Buffer.concat(
        shown
          .split(/(\\x[0-9a-f]{2})/)
          .map((part) =>
            /^\\x[0-9a-f]{2}$/.test(part)
              ? Buffer.from([Number.parseInt(part.slice(2), 16)])
              : Buffer.from(part),
          ),
      );
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 40 }).filter((b) => !b.includes(0x5c)),
        (bytes) => {
          expect(bytesOf(displayName(Buffer.from(bytes))).equals(Buffer.from(bytes))).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

/**
 * Names with a line break against the denied patterns (seed 000 default denies; review of issue
 * #33): picomatch's wildcards stopped at "\n", so `**\/.ssh/**` did not cover `.ssh/id\nx` and
 * read_file returned the key; write_file made `.ssh/z\nq`.
 */
describe('denied paths whose names hold a line break stay denied', () => {
  it('read_file, write_file and glob on keys, .ssh, toolgate state and nested git config named with \\n, \\r, U+2028', async () => {
    const root = makeTempDir('toolgate-names-nl-');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.join(root, '.ssh'));
    mkdirSync(path.join(root, 'd\n'));
    mkdirSync(path.join(root, 'a\nb/.git'), { recursive: true });
    const secrets = ['.ssh/id\nx', '.ssh/id\rx', '.ssh/id\u2028x', 'd\n/x.pem', 'a\nb/.git/config'];
    for (const name of secrets) writeFileSync(path.join(root, name), 'SECRET-KEY');
    writeFileSync(path.join(root, 'ok.txt'), 'fine');
    const gate = createToolgate({ config: validateConfig({}), roots: [root], approver: approveAll });
    const calls = [
      ...secrets.map((name, i) => ({ id: `r${i}`, name: 'read_file', arguments: { path: name } })),
      { id: 'w1', name: 'write_file', arguments: { path: '.ssh/z\nq', content: 'x' } },
      { id: 'w2', name: 'write_file', arguments: { path: 'a\nb/.git/config', content: '[core]\n' } },
      { id: 'ok', name: 'read_file', arguments: { path: 'ok.txt' } },
    ];
    const results = await gate.execute(calls);
    for (const r of results.slice(0, -1)) {
      expect(r.ok, `${r.id}: ${r.content}`).toBe(false);
      expect(r.content).not.toContain('SECRET-KEY');
    }
    expect(results.at(-1)?.content).toContain('fine');
    const [listed] = await gate.execute([
      { id: 'g', name: 'glob', arguments: { pattern: '**/*', include_hidden: true } },
    ]);
    expect(listed?.content).toBe('ok.txt');
  });
});
