import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { globGates } from '../../../test/helpers/glob-gates.js';
import { BASES, subsets, tree, write } from '../../../test/helpers/ignore-tree.js';
import { makeTempDir } from '../../../test/helpers/workspace.js';
import type { Toolgate } from '../../toolgate.js';
import { grepWithRipgrep, ripgrepBinary } from './grep-ripgrep.js';
import { PruneLog } from './prune-log.js';

/**
 * Issue #33: grep's ripgrep search skips what the .gitignore rules at and above the searched
 * folder ignore (prune-rules.ts) in one walk, and ripgrep's debug log says what it skipped: the
 * filter judges each of those, and when one is kept (a `!` below) the search runs again unpruned.
 * With an include glob, a listing of the .gitignore files runs beside the search instead. Either
 * way the answer must be exactly the JavaScript search's, on trees with nested .gitignore files
 * (re-includes too), hidden files, links, denied files and `.jj` folders.
 */

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function grepOf(gate: Toolgate, args: Record<string, unknown>) {
  const [r] = await gate.execute([
    { id: '1', name: 'grep', arguments: { pattern: 'needle', max_results: 1000, ...args } },
  ]);
  // Same lines in any order: ripgrep searches on several threads.
  return { ok: r?.ok, lines: (r?.content ?? '').split('\n').sort() };
}

describe('grep: ripgrep skips only what toolgate ignores (issue #33)', () => {
  it('the ripgrep search answers what the JavaScript search answers, from any folder, with or without an include glob', async () => {
    expect(ripgrepBinary()).toBeDefined();
    const outside = makeTempDir();
    made.push(outside);
    writeFileSync(path.join(outside, 'secret.ts'), 'needle\n');
    await fc.assert(
      fc.asyncProperty(
        tree,
        fc.constantFrom(...BASES),
        fc.constantFrom(undefined, '*.ts', '*.log', 'build'),
        async (t, base, include) => {
          const root = makeTempDir('toolgate-grep-prune-');
          made.push(root);
          write(root, outside, t, 'needle\n');
          const { ripgrep, javascript } = globGates(root);
          const args = { path: base, ...(include === undefined ? {} : { include }) };
          expect(await grepOf(ripgrep, args), JSON.stringify({ t, include })).toEqual(
            await grepOf(javascript, args),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('every mix of rules from above and re-includes below: the same answer as the JavaScript search', async () => {
    // Exhaustive where random trees rarely land: a folder or file skipped by a rule from above
    // that a `!` below (or anchored above) brings back, in one walk or beside a listing.
    for (const top of subsets(['build/', '!src/lib/build/', '*.log'])) {
      for (const lib of subsets(['!build/', '!b.log'])) {
        const root = makeTempDir('toolgate-grep-prune-');
        made.push(root);
        for (const dir of ['src/lib/build', 'src/jj/build', 'src/build', 'src/log']) {
          mkdirSync(path.join(root, dir), { recursive: true });
          writeFileSync(path.join(root, dir, 'a.ts'), 'needle\n');
          writeFileSync(path.join(root, dir, 'b.log'), 'needle\n');
        }
        writeFileSync(path.join(root, '.gitignore'), `${top.join('\n')}\n`);
        // Below the folders searched, where the rules from above are sent all the same.
        writeFileSync(path.join(root, 'src/lib/.gitignore'), `${lib.join('\n')}\n`);
        const { ripgrep, javascript } = globGates(root);
        for (const base of ['.', 'src', 'src/lib']) {
          for (const include of [undefined, '*.ts']) {
            const args = { path: base, ...(include === undefined ? {} : { include }) };
            const context = JSON.stringify({ top, lib, base, include });
            expect(await grepOf(ripgrep, args), context).toEqual(await grepOf(javascript, args));
          }
        }
      }
    }
  });

  it('a `!` below brings back a folder the rules from above skip', async () => {
    const root = makeTempDir('toolgate-grep-prune-');
    made.push(root);
    writeFileSync(path.join(root, '.gitignore'), 'build/\n');
    mkdirSync(path.join(root, 'src/deep/build'), { recursive: true });
    mkdirSync(path.join(root, 'src/other/build'), { recursive: true });
    writeFileSync(path.join(root, 'src/deep/.gitignore'), '!build/\n');
    writeFileSync(path.join(root, 'src/deep/build/a.ts'), 'needle\n');
    writeFileSync(path.join(root, 'src/other/build/b.ts'), 'needle\n');
    expect((await grepOf(globGates(root).ripgrep, { path: 'src' })).lines).toEqual([
      'src/deep/build/a.ts:1: needle',
    ]);
  });
});

describe('grep: names with line breaks (review of issue #33)', () => {
  it('are left out on ripgrep as on the JavaScript search: a path a line, never a forged one', async () => {
    const root = makeTempDir('toolgate-grep-prune-');
    made.push(root);
    writeFileSync(path.join(root, '.gitignore'), 'build/\n');
    for (const dir of ['a\nb', 'c\rd', 'e\u2028f', 'q\nrg: DEBUG|ignore::walk|x: ignoring .', 'plain']) {
      mkdirSync(path.join(root, dir, 'build'), { recursive: true });
      writeFileSync(path.join(root, dir, 'v.txt'), 'needle\n');
      writeFileSync(path.join(root, dir, '.gitignore'), '!build/\n');
      writeFileSync(path.join(root, dir, 'build/kept.txt'), 'needle\n');
    }
    const { ripgrep, javascript } = globGates(root);
    const answer = await grepOf(ripgrep, {});
    expect(answer).toEqual(await grepOf(javascript, {}));
    expect(answer.lines).toEqual(['plain/build/kept.txt:1: needle', 'plain/v.txt:1: needle']);
  });
});

describe('grep: a walk that skips too much to log (review of issue #33)', () => {
  it('hidden files by the thousand stop the logged walk at its size limit; the search beside a listing answers, a `!` below still counts', async () => {
    const root = makeTempDir('toolgate-grep-prune-');
    made.push(root);
    writeFileSync(path.join(root, '.gitignore'), 'build/\n');
    mkdirSync(path.join(root, 'hid'));
    // ~4,000 log lines of ~300 bytes: past the 1 MB the log may take.
    for (let i = 0; i < 4000; i++) writeFileSync(path.join(root, 'hid', `.${'h'.repeat(200)}${i}`), '');
    for (const dir of ['sub/build', 'other/build']) mkdirSync(path.join(root, dir), { recursive: true });
    writeFileSync(path.join(root, 'sub/.gitignore'), '!build/\n');
    writeFileSync(path.join(root, 'sub/build/kept.txt'), 'needle\n');
    writeFileSync(path.join(root, 'other/build/skipped.txt'), 'needle\n');
    writeFileSync(path.join(root, 'hid/seen.txt'), 'needle\n');

    const log = new PruneLog();
    await grepWithRipgrep(
      ripgrepBinary() ?? '',
      { cwd: root, target: '.', pruneRules: 'build/\n', pruneLog: log },
      {
        pattern: 'needle',
        caseSensitive: false,
        fixedStrings: false,
        context: 0,
        include: undefined,
        maxResults: 10,
      },
      () => true,
      new AbortController().signal,
    );
    expect({ tooLong: log.tooLong, complete: log.complete }).toEqual({ tooLong: true, complete: false });

    const { ripgrep, javascript } = globGates(root);
    const answer = await grepOf(ripgrep, {});
    expect(answer.lines).toEqual(['hid/seen.txt:1: needle', 'sub/build/kept.txt:1: needle']);
    expect(answer).toEqual(await grepOf(javascript, {}));
  });
});
