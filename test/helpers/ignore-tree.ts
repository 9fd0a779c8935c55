import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';

/**
 * Random trees with nested .gitignore files (re-includes too), hidden files, links, denied files
 * and `.jj` folders, for the tests that check a pruned ripgrep walk answers what the JavaScript
 * walker answers (glob-prune.test.ts, grep-prune.test.ts).
 */

export const DIRS = [
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
export const FILES = ['a.ts', 'b.log', 'keep.log', '.env', 'key.pem', 'c.js', 'build'];
export const LINES = [
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
export const BASES = ['.', 'src', 'src', 'src/lib', 'src/jj', 'docs'];
// Not `x/**`: picomatch matches a file named x with it, ripgrep's globs (as gitignore) do not.
export const PATTERNS = ['**/*', '**/*.ts', '**/*.log', '*', '**/build/*', 'src/**/*.js', '**/.*'];

export interface Tree {
  files: string[];
  gitignores: [dir: string, lines: string[]][];
  jj: string[];
  links: [at: string, to: string][];
}

/** .gitignore files sit mostly on the searched folders and above them, where the rules reach ripgrep. */
export const IGNORE_DIRS = ['', 'src', 'src/lib', 'src/jj', 'docs'];

export const tree: fc.Arbitrary<Tree> = fc.record({
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

/** Writes `t` under `root`; links to `outside` point out of the root. `content` goes in every file. */
export function write(root: string, outside: string, t: Tree, content = ''): void {
  for (const dir of DIRS) mkdirSync(path.join(root, dir), { recursive: true });
  for (const file of t.files) {
    // A file where a directory goes (src/lib/build) is left out.
    if (!DIRS.includes(file)) writeFileSync(path.join(root, file), content);
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

/** Every subset of `xs` (for exhaustive mixes of rules). */
export function subsets<T>(xs: readonly T[]): T[][] {
  return xs.reduce<T[][]>((all, x) => all.concat(all.map((s) => [...s, x])), [[]]);
}
