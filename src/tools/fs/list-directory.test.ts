import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
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

  it('.gitignore entries (nested files too) are left out and counted (an example; Property 24: test/conformance/property-24-gitignore.test.ts)', async () => {
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
    // A directory named explicitly is listed even if an ancestor ignores it (as glob, grep and rg
    // do); the ancestor's other lines still apply inside it.
    ws.file('node_modules/x/debug.log', '');
    const named = await list({ path: 'node_modules', depth: 1 });
    expect(named.entries.map((e) => e.name)).toEqual(['x']);
    expect(named.entries[0]?.children?.map((e) => e.name)).toEqual(['index.js']);
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

describe('list_directory properties', () => {
  const tree = fc.uniqueArray(
    fc
      .array(fc.constantFrom('a', 'b', '.h', 'c.txt', '.d.txt'), { minLength: 1, maxLength: 4 })
      .map((parts) => parts.join('/')),
    { minLength: 1, maxLength: 10, selector: (p) => p },
  );

  function build(paths: string[]): string {
    const root = makeTempDir('toolgate-ls-');
    for (const p of paths) {
      const full = path.join(root, p);
      try {
        mkdirSync(path.dirname(full), { recursive: true });
        writeFileSync(full, 'x');
      } catch {
        // a path that needs a file as a directory: skip it, the tree stays valid
      }
    }
    return root;
  }

  function depthOf(entries: Listing['entries'] | undefined): number {
    if (!entries || entries.length === 0) return 0;
    return 1 + Math.max(...entries.map((e) => depthOf(e.children)));
  }

  it('Property 22: every (non-hidden) entry of the directory is listed', async () => {
    await fc.assert(
      fc.asyncProperty(tree, fc.boolean(), async (paths, hidden) => {
        const root = build(paths);
        try {
          const gate = createToolgate({ config: validateConfig({}), roots: [root] });
          const [r] = await gate.execute([
            { id: '1', name: 'list_directory', arguments: { path: '.', include_hidden: hidden } },
          ]);
          const names = (JSON.parse(r?.content ?? '{}') as Listing).entries.map((e) => e.name).sort();
          const expected = readdirSync(root)
            .filter((n) => hidden || !n.startsWith('.'))
            .sort();
          expect(names).toEqual(expected);
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 100 },
    );
  });

  it('Property 23: recursion includes subdirectory contents down to depth, and no deeper', async () => {
    await fc.assert(
      fc.asyncProperty(tree, fc.integer({ min: 0, max: 3 }), async (paths, depth) => {
        const root = build(paths);
        try {
          const gate = createToolgate({ config: validateConfig({}), roots: [root] });
          const [r] = await gate.execute([
            { id: '1', name: 'list_directory', arguments: { path: '.', depth, include_hidden: true } },
          ]);
          const listing = JSON.parse(r?.content ?? '{}') as Listing;
          expect(depthOf(listing.entries)).toBeLessThanOrEqual(depth + 1);
          // Every file at most depth+1 levels down is present.
          const flat: string[] = [];
          const walk = (entries: Listing['entries'], prefix: string) => {
            for (const e of entries) {
              flat.push(prefix + e.name);
              if (e.children) walk(e.children, `${prefix}${e.name}/`);
            }
          };
          walk(listing.entries, '');
          for (const p of paths) {
            const parts = p.split('/');
            if (parts.length <= depth + 1 && existsSync(path.join(root, p))) expect(flat).toContain(p);
          }
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 100 },
    );
  });
});
