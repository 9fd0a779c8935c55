import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import ignore, { type Ignore } from 'ignore';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../test/helpers/workspace.js';
import { GitignoreFilter } from './gitignore-filter.js';

const DIRS = ['', 'a', 'b', 'a/c', 'a/c/d', 'b/tmp'];
const PATTERNS = [
  '*.log',
  '!keep.log',
  '!*.log',
  'c/',
  '/b',
  'd',
  'tmp/',
  '**/tmp',
  'x*',
  '!x1',
  'a/c',
  'c/*',
  '*.md',
  '!r.md',
  '# note',
  '',
];

/**
 * One file's verdict on the path itself. The package's public test() also checks the path's
 * folders against that one file, which lets an upper file's `build/` beat a deeper `!build/`; the
 * folders are judged here through the whole chain instead, as git does.
 */
function alone(rules: Ignore, path: string): { ignored: boolean; unignored: boolean } {
  type Rules = { test(path: string, mode: 'regex'): { ignored: boolean; unignored: boolean } };
  return (rules as unknown as { _rules: Rules })._rules.test(path, 'regex');
}

/**
 * The rule written out directly: a path is ignored when a directory on its way below the search
 * base is matched (as a directory) by a .gitignore above it, or when the path itself is matched by
 * the deepest .gitignore that has a say about it (a `!` line there re-includes it); nested files
 * speak relative to their own folder, and lines that exclude the named base or its ancestors are
 * set aside.
 */
function reference(base: string, texts: Map<string, string>, relative: string, isDir: boolean) {
  const baseParts = base.split('/').filter(Boolean);
  const matcher = (dir: string) => {
    const text = texts.get(dir);
    if (text === undefined) return undefined;
    const depth = dir === '' ? 0 : dir.split('/').length;
    const guarded = baseParts.slice(depth).map((_, i, rest) => `${rest.slice(0, i + 1).join('/')}/`);
    const kept = text.split('\n').filter((line) => {
      const t = line.trim();
      if (t === '' || t.startsWith('#') || t.startsWith('!') || depth >= baseParts.length) return true;
      const one = ignore().add(line);
      return !guarded.some((g) => one.ignores(g));
    });
    return ignore().add(kept.join('\n'));
  };
  const parts = relative.split('/');
  const matchedBelow = (upTo: number, asDir: boolean) => {
    // The deepest .gitignore with a say decides: excluded, or re-included by a `!` line.
    for (let i = upTo - 1; i >= 0; i--) {
      const rules = matcher(parts.slice(0, i).join('/'));
      const rest = parts.slice(i, upTo).join('/');
      const verdict = rules && alone(rules, asDir ? `${rest}/` : rest);
      if (verdict?.ignored) return true;
      if (verdict?.unignored) return false;
    }
    return false;
  };
  for (let n = baseParts.length + 1; n < parts.length; n++) if (matchedBelow(n, true)) return true;
  if (isDir) return parts.length > baseParts.length && matchedBelow(parts.length, true);
  return matchedBelow(parts.length, false);
}

describe('GitignoreFilter (Property 24, the filter alone; through the tools against git: test/conformance/property-24-gitignore.test.ts)', () => {
  it('agrees with the rule written out directly, for any nested .gitignore files and search base', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...DIRS), fc.array(fc.constantFrom(...PATTERNS), { maxLength: 4 })),
        fc.constantFrom('', 'a', 'a/c', 'b'),
        fc.array(
          fc.tuple(
            fc.constantFrom(...DIRS),
            fc.constantFrom('f.log', 'keep.log', 'x1', 'r.md', 'c', 'd', 'tmp'),
            fc.boolean(),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        (gitignores, base, queries) => {
          const root = makeTempDir();
          const texts = new Map<string, string>();
          for (const dir of DIRS) mkdirSync(path.join(root, dir), { recursive: true });
          for (const [dir, lines] of Object.entries(gitignores)) {
            texts.set(dir, lines.join('\n'));
            writeFileSync(path.join(root, dir, '.gitignore'), lines.join('\n'));
          }
          const filter = new GitignoreFilter(root, base);
          for (const [dir, name, isDir] of queries) {
            const relative = dir ? `${dir}/${name}` : name;
            expect(filter.ignores(relative, isDir), `${relative} (dir: ${isDir}, base: "${base}")`).toBe(
              reference(base, texts, relative, isDir),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a deeper .gitignore re-includes what a shallower one excluded (root `docs/*`, docs/.gitignore `!x1`), as git does', () => {
    const root = makeTempDir();
    mkdirSync(path.join(root, 'docs'), { recursive: true });
    writeFileSync(path.join(root, '.gitignore'), 'docs/*\n');
    writeFileSync(path.join(root, 'docs', '.gitignore'), '!x1\n');
    const filter = new GitignoreFilter(root);
    expect(filter.ignores('docs/x1')).toBe(false);
    expect(filter.ignores('docs/x2')).toBe(true);
    // An excluded directory is not searched at all: a `!` inside it cannot bring a file back.
    writeFileSync(path.join(root, '.gitignore'), 'docs/\n');
    expect(new GitignoreFilter(root).ignores('docs/x1')).toBe(true);
  });

  it('a deeper `!build/` re-includes folders an upper `build/` excluded, files and folders below them too (git keeps src/x/build/a.ts)', () => {
    const root = makeTempDir();
    mkdirSync(path.join(root, 'src/x/build/sub'), { recursive: true });
    writeFileSync(path.join(root, '.gitignore'), 'build/\n');
    writeFileSync(path.join(root, 'src', '.gitignore'), '!build/\n');
    const filter = new GitignoreFilter(root);
    expect(filter.ignores('src/x/build/a.ts')).toBe(false);
    expect(filter.ignores('src/x/build/sub', true)).toBe(false);
    expect(filter.ignores('src/x/build/sub/b.ts')).toBe(false);
    expect(filter.ignores('build/a.ts')).toBe(true);
  });

  it('untidy spellings of a path (leading, trailing, doubled slashes) get the same answer', () => {
    const root = makeTempDir();
    mkdirSync(path.join(root, 'a/c'), { recursive: true });
    writeFileSync(path.join(root, '.gitignore'), 'c/\n*.log\n');
    const filter = new GitignoreFilter(root);
    for (const p of ['a/c/x', '/a/c/x', 'a//c/x', 'a/c/x/']) expect(filter.ignores(p), p).toBe(true);
    for (const p of ['a/x.log', '//a/x.log']) expect(filter.ignores(p), p).toBe(true);
    for (const p of ['a/x.txt', 'a//x.txt/']) expect(filter.ignores(p), p).toBe(false);
  });
});
