import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { globGates } from '../../../test/helpers/glob-gates.js';
import { BASES, PATTERNS, subsets, tree, write } from '../../../test/helpers/ignore-tree.js';
import { makeTempDir } from '../../../test/helpers/workspace.js';
import type { Toolgate } from '../../toolgate.js';
import { ripgrepBinary } from './grep-ripgrep.js';

/**
 * Issue #33: glob's ripgrep walk skips what .gitignore rules ignore (the rules at and below the
 * searched folder, and those above it sent as an ignore file), while toolgate's own filter still
 * judges every name. Skipping must never drop a name the filter keeps: the ripgrep path must answer
 * exactly what the JavaScript walker (tinyglobby, then the same filter) answers, on trees with
 * nested .gitignore files (re-includes too), hidden files, links, denied files and `.jj` folders
 * (below one, ripgrep stops reading the .gitignore files above it).
 */

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function globOf(gate: Toolgate, args: Record<string, unknown>) {
  const [r] = await gate.execute([{ id: '1', name: 'glob', arguments: { max_results: 1000, ...args } }]);
  return { ok: r?.ok, content: r?.content };
}

describe('glob: ripgrep skips only what toolgate ignores (issue #33)', () => {
  it('the ripgrep path answers what the JavaScript walker answers, searched from any folder', async () => {
    expect(ripgrepBinary()).toBeDefined();
    const outside = makeTempDir();
    made.push(outside);
    writeFileSync(path.join(outside, 'secret.ts'), '');
    await fc.assert(
      fc.asyncProperty(
        tree,
        fc.constantFrom(...BASES),
        fc.constantFrom(...PATTERNS),
        fc.boolean(),
        async (t, base, pattern, includeHidden) => {
          const root = makeTempDir('toolgate-prune-');
          made.push(root);
          write(root, outside, t);
          const { ripgrep, javascript } = globGates(root);
          const args = { pattern, path: base, include_hidden: includeHidden };
          expect(await globOf(ripgrep, args), JSON.stringify(t)).toEqual(await globOf(javascript, args));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('every mix of rules from above, re-includes below and a .jj folder: the same answer as the JavaScript walker', async () => {
    // Exhaustive where random trees rarely land: a directory skipped by a rule from above that a
    // `!` (above, anchored, or below, behind a .jj folder) brings back.
    for (const top of subsets(['build/', '!src/lib/build/', '*.log'])) {
      for (const src of subsets(['!build/', '!a.ts'])) {
        for (const jj of [false, true]) {
          const root = makeTempDir('toolgate-prune-');
          made.push(root);
          for (const dir of ['src/lib/build', 'src/jj/build', 'src/build']) {
            mkdirSync(path.join(root, dir), { recursive: true });
            writeFileSync(path.join(root, dir, 'a.ts'), '');
            writeFileSync(path.join(root, dir, 'b.ts'), '');
          }
          writeFileSync(path.join(root, '.gitignore'), `${top.join('\n')}\n`);
          writeFileSync(path.join(root, 'src/.gitignore'), `${src.join('\n')}\n`);
          if (jj) mkdirSync(path.join(root, 'src/jj/.jj'));
          const { ripgrep, javascript } = globGates(root);
          for (const base of ['src', 'src/lib', 'src/jj']) {
            const args = { pattern: '**/*.ts', path: base };
            const context = JSON.stringify({ top, src, jj, base });
            expect(await globOf(ripgrep, args), context).toEqual(await globOf(javascript, args));
          }
        }
      }
    }
  });

  it('a re-include below the folder searched stands against the rules from above, even under a .jj folder', async () => {
    const root = makeTempDir('toolgate-prune-');
    made.push(root);
    writeFileSync(path.join(root, '.gitignore'), 'build/\n');
    mkdirSync(path.join(root, 'src/jj/.jj'), { recursive: true });
    mkdirSync(path.join(root, 'src/jj/build'), { recursive: true });
    writeFileSync(path.join(root, 'src/.gitignore'), '!build/\n!a.ts\n');
    writeFileSync(path.join(root, 'src/jj/build/a.ts'), '');
    expect((await globOf(globGates(root).ripgrep, { pattern: '**/*.ts', path: 'src' })).content).toBe(
      'src/jj/build/a.ts',
    );
  });

  it('rules from above are not sent when one of them re-includes (an anchored `!` cannot be sent)', async () => {
    const root = makeTempDir('toolgate-prune-');
    made.push(root);
    writeFileSync(path.join(root, '.gitignore'), 'build/\n!src/lib/build/\n');
    mkdirSync(path.join(root, 'src/lib/build'), { recursive: true });
    mkdirSync(path.join(root, 'src/other/build'), { recursive: true });
    writeFileSync(path.join(root, 'src/lib/build/a.ts'), '');
    writeFileSync(path.join(root, 'src/other/build/b.ts'), '');
    expect((await globOf(globGates(root).ripgrep, { pattern: '**/*.ts', path: 'src' })).content).toBe(
      'src/lib/build/a.ts',
    );
  });
});

describe('glob: hidden names a pattern names through braces (issue #33 review)', () => {
  it('both engines answer alike, and `{.github,src}/*.yml` finds .github/x.yml on ripgrep too', async () => {
    const root = makeTempDir('toolgate-prune-');
    made.push(root);
    for (const file of [
      '.github/x.yml',
      'src/y.yml',
      'src/.z.yml',
      'src/.hid/w.yml',
      '.a/.b/c.yml',
      '.a/d.yml',
    ]) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), '');
    }
    const { ripgrep, javascript } = globGates(root);
    // Not `**/.*/*.yml`: tinyglobby's walk leaves out .a/d.yml there, which picomatch matches.
    for (const pattern of [
      '{.github,src}/*.yml',
      '**/*.yml',
      '.*/*.yml',
      '{.a,src}/**/*.yml',
      'src/{.hid,x}/*.yml',
      '.a/.b/*.yml',
      '**/{.b,x}/*.yml',
    ]) {
      expect(await globOf(ripgrep, { pattern }), pattern).toEqual(await globOf(javascript, { pattern }));
    }
    expect((await globOf(ripgrep, { pattern: '{.github,src}/*.yml' })).content).toBe(
      '.github/x.yml\nsrc/y.yml',
    );
  });
});

describe('glob: a leading ! (issue #33 review)', () => {
  it('is refused on both engines (picomatch reads it as "everything but", ripgrep as a name); "?" finds such a name on both', async () => {
    const root = makeTempDir('toolgate-prune-');
    made.push(root);
    for (const file of ['a.ts', 'b.ts', '!a.ts']) writeFileSync(path.join(root, file), '');
    const { ripgrep, javascript } = globGates(root);
    for (const gate of [ripgrep, javascript]) {
      const refused = await globOf(gate, { pattern: '!a.ts' });
      expect(refused.ok).toBe(false);
      expect(refused.content).toMatch(/starts with "!"/);
      expect(await globOf(gate, { pattern: '?a.ts' })).toEqual({ ok: true, content: '!a.ts' });
    }
  });
});
