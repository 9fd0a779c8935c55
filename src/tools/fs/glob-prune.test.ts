import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { globGates } from '../../../test/helpers/glob-gates.js';
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

const DIRS = [
  'src',
  'src/lib',
  'src/lib/build',
  'src/dist',
  'src/.hid',
  'src/jj',
  'src/jj/build',
  'build',
  'docs',
];
const FILES = ['a.ts', 'b.log', 'keep.log', '.env', 'key.pem', 'c.js', 'build'];
const LINES = [
  'build/',
  'build',
  '/build',
  '*.log',
  '!keep.log',
  '!build/',
  'dist',
  '**/dist/',
  'lib/',
  'src/lib/',
  '!src/lib/build/',
  'src/',
  'src',
  '*.ts',
  '!a.ts',
  'jj/',
  '.hid/',
  '\\!x',
];
const BASES = ['.', 'src', 'src', 'src/lib', 'src/jj', 'docs'];
// Not `x/**`: picomatch matches a file named x with it, ripgrep's globs (as gitignore) do not.
const PATTERNS = ['**/*', '**/*.ts', '**/*.log', '*', '**/build/*', 'src/**/*.js', '**/.*'];

interface Tree {
  files: string[];
  gitignores: [dir: string, lines: string[]][];
  jj: string[];
  links: [at: string, to: string][];
}

/** .gitignore files sit mostly on the searched folders and above them, where the rules reach ripgrep. */
const IGNORE_DIRS = ['', 'src', 'src/lib', 'src/jj', 'docs'];

const tree: fc.Arbitrary<Tree> = fc.record({
  // Most files of the grid, so that the rules have something to leave out or keep.
  files: fc.subarray(
    ['', ...DIRS].flatMap((d) => FILES.map((f) => (d ? `${d}/${f}` : f))),
    { minLength: 20 },
  ),
  gitignores: fc.uniqueArray(
    fc.tuple(
      fc.constantFrom(...IGNORE_DIRS),
      fc.array(fc.constantFrom(...LINES), { minLength: 1, maxLength: 4 }),
    ),
    { maxLength: 4, selector: ([dir]) => dir },
  ),
  jj: fc.uniqueArray(fc.constantFrom('src', 'src/jj', 'src/lib', 'src/lib/build', 'docs'), { maxLength: 2 }),
  links: fc.uniqueArray(
    fc.tuple(fc.constantFrom('', ...DIRS), fc.constantFrom('outside', 'src', 'src/lib/a.ts', 'docs')),
    { maxLength: 2, selector: ([at]) => at },
  ),
});

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function write(root: string, outside: string, t: Tree): void {
  for (const dir of DIRS) mkdirSync(path.join(root, dir), { recursive: true });
  for (const file of t.files) {
    // A file where a directory goes (src/lib/build) is left out.
    if (!DIRS.includes(file)) writeFileSync(path.join(root, file), '');
  }
  for (const [dir, lines] of t.gitignores)
    writeFileSync(path.join(root, dir, '.gitignore'), `${lines.join('\n')}\n`);
  for (const dir of t.jj) mkdirSync(path.join(root, dir, '.jj', 'repo'), { recursive: true });
  for (const [at, to] of t.links) {
    const target = to === 'outside' ? outside : path.join(root, to);
    try {
      symlinkSync(target, path.join(root, at, 'link'));
    } catch {
      // a file named link already there: no link this time
    }
  }
}

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
    const subsets = <T>(xs: T[]): T[][] =>
      xs.reduce<T[][]>((all, x) => all.concat(all.map((s) => [...s, x])), [[]]);
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
