import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useWorkspace } from '../../../test/helpers/workspace.js';
import { globWithRipgrep } from './glob-ripgrep.js';
import { ripgrepBinary } from './grep-ripgrep.js';

const binary = ripgrepBinary() as string;
const signal = () => new AbortController().signal;

describe('globWithRipgrep', () => {
  const ws = useWorkspace();
  const tree = (files: number) => {
    for (let i = 0; i < files; i++) ws.file(`d${i % 3}/f${i}.txt`, '');
    return ws.dir();
  };

  it('ripgrep is there to test', () => {
    expect(binary).toBeDefined();
  });

  it('stops at the cap on names listed and says so', async () => {
    const dir = tree(30);
    const listed = await globWithRipgrep(binary, dir, '**/*.txt', {
      hidden: false,
      signal: signal(),
      keep: (name) => name,
      maxNames: 10,
    });
    expect(listed.truncated).toBe(true);
    expect(listed.names).toHaveLength(10);
    const all = await globWithRipgrep(binary, dir, '**/*.txt', {
      hidden: false,
      signal: signal(),
      keep: (n) => n,
    });
    expect(all.truncated).toBe(false);
    expect(all.names).toHaveLength(30);
  });

  it('keeps what the judge makes of each name, and counts the ones it drops toward the cap', async () => {
    const dir = tree(12);
    const listed = await globWithRipgrep(binary, dir, '**/*.txt', {
      hidden: false,
      signal: signal(),
      keep: (name) => (name.startsWith('d0/') ? `root/${name}` : undefined),
    });
    expect(listed.names.sort()).toEqual(
      ['d0/f0.txt', 'd0/f3.txt', 'd0/f6.txt', 'd0/f9.txt'].map((n) => `root/${n}`),
    );
    const capped = await globWithRipgrep(binary, dir, '**/*.txt', {
      hidden: false,
      signal: signal(),
      keep: () => undefined,
      maxNames: 5,
    });
    expect(capped).toMatchObject({ names: [], truncated: true });
  });

  it('a cancelled walk ends as Cancelled', async () => {
    const dir = tree(300);
    const abort = new AbortController();
    const walk = globWithRipgrep(binary, dir, '**/*', {
      hidden: false,
      signal: abort.signal,
      keep: (name) => {
        abort.abort();
        return name;
      },
    });
    await expect(walk).rejects.toMatchObject({ type: 'Cancelled' });
  });

  it('rules from above reach ripgrep as an ignore file, with the .gitignore files it met; never with hidden', async () => {
    const dir = ws.dir();
    for (const d of ['a/build', 'b', '.h/build']) mkdirSync(path.join(dir, d), { recursive: true });
    writeFileSync(path.join(dir, 'a/build/x.ts'), '');
    writeFileSync(path.join(dir, 'a/y.ts'), '');
    writeFileSync(path.join(dir, 'b/.gitignore'), 'z\n');
    writeFileSync(path.join(dir, '.h/build/w.ts'), '');
    const keep = (name: string) => name;
    const pruned = await globWithRipgrep(binary, dir, '**/*.ts', {
      hidden: false,
      signal: signal(),
      keep,
      fromAbove: 'build/\n',
    });
    expect(pruned).toEqual({ names: ['a/y.ts'], truncated: false, gitignoreDirs: ['b'] });
    const hidden = await globWithRipgrep(binary, dir, '**/*.ts', {
      hidden: true,
      signal: signal(),
      keep,
      fromAbove: 'build/\n',
    });
    expect(hidden.names.sort()).toEqual(['.h/build/w.ts', 'a/build/x.ts', 'a/y.ts']);
    expect(hidden.gitignoreDirs).toBeUndefined();
  });
});
