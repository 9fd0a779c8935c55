import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, useWorkspace } from '../../../test/helpers/workspace.js';
import { validateConfig } from '../../config/load-config.js';
import { createToolgate } from '../../toolgate.js';
import type { Listing } from './list-directory.js';

describe('list_directory', () => {
  const ws = useWorkspace();
  const list = async (args: Record<string, unknown>) => {
    const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()] });
    const [r] = await gate.execute([{ id: '1', name: 'list_directory', arguments: args }]);
    if (!r?.ok) throw new Error(r?.content);
    return JSON.parse(r.content) as Listing;
  };

  it('returns the DESIGN §2.4 object: directories first, sizes for files', async () => {
    ws.file('b.txt', '12345');
    ws.file('a/x.txt', '1');
    ws.file('.hidden', '');
    expect(await list({ path: '.' })).toEqual({
      path: '.',
      entries: [
        { name: 'a', type: 'directory' },
        { name: 'b.txt', type: 'file', size: 5 },
      ],
      truncated: false,
      ignored: 0,
    });
  });

  it('Property 22: include_hidden lists dot entries', async () => {
    ws.file('.env.example', '');
    ws.file('v.txt', '');
    expect((await list({ path: '.', include_hidden: true })).entries.map((e) => e.name)).toEqual([
      '.env.example',
      'v.txt',
    ]);
  });

  it('Property 23: depth limits recursion', async () => {
    ws.file('a/b/c/d.txt', '');
    const zero = await list({ path: '.' });
    expect(zero.entries[0]?.children).toBeUndefined();
    const two = await list({ path: '.', depth: 2 });
    expect(two.entries[0]?.children?.[0]).toEqual({
      name: 'b',
      type: 'directory',
      children: [{ name: 'c', type: 'directory' }],
    });
  });

  it('Property 24: .gitignore entries (nested files too) are left out and counted', async () => {
    ws.file('.gitignore', 'node_modules/\n*.log\n');
    ws.file('node_modules/x/index.js', '');
    ws.file('app.log', '');
    ws.file('src/.gitignore', 'gen/\n');
    ws.file('src/gen/out.js', '');
    ws.file('src/main.ts', '');
    const listing = await list({ path: '.', depth: 2 });
    expect(listing.entries.map((e) => e.name)).toEqual(['src']);
    expect(listing.entries[0]?.children?.map((e) => e.name)).toEqual(['main.ts']);
    expect(listing.ignored).toBe(3);
    // Listing a subdirectory still applies the root's .gitignore.
    ws.file('src/debug.log', '');
    expect((await list({ path: 'src' })).entries.map((e) => e.name)).toEqual(['main.ts']);
  });

  it('symlinks are listed as links; nothing is read from their targets', async () => {
    const outside = makeTempDir();
    ws.file('real.txt', 'x');
    symlinkSync(outside, path.join(ws.dir(), 'outdir'));
    symlinkSync('real.txt', path.join(ws.dir(), 'link.txt'));
    const listing = await list({ path: '.', depth: 3 });
    expect(listing.entries).toEqual([
      { name: 'link.txt', type: 'symlink' },
      { name: 'outdir', type: 'symlink' },
      { name: 'real.txt', type: 'file', size: 1 },
    ]);
  });

  it('caps the entry count and says truncated', async () => {
    for (let i = 0; i < 1005; i++) ws.file(`many/f${String(i).padStart(4, '0')}`, '');
    const listing = await list({ path: 'many' });
    expect(listing.entries).toHaveLength(1000);
    expect(listing.truncated).toBe(true);
  });

  it('a file is not a directory', async () => {
    ws.file('f.txt', '');
    const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()] });
    const [r] = await gate.execute([{ id: '1', name: 'list_directory', arguments: { path: 'f.txt' } }]);
    expect(r?.error?.type).toBe('BadArgs');
  });
});
