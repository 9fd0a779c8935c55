import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../test/helpers/workspace.js';
import { confirmListed } from './confirm-listed.js';

/**
 * Issue #33's review: a walk by path names (ripgrep's, tinyglobby's) follows a folder swapped for
 * a link while it runs and lists names from outside the root. Each case here stages what such a
 * walk would have answered, with the swap made after the walk "began", and the live race is in
 * test/security/races.test.ts.
 */

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A root with a/b/in.txt and top.txt, untouched for a while, and a folder outside with secret.txt. */
function world() {
  const root = makeTempDir('toolgate-confirm-');
  const outside = makeTempDir('toolgate-confirm-out-');
  made.push(root, outside);
  mkdirSync(path.join(root, 'a/b'), { recursive: true });
  writeFileSync(path.join(root, 'a/b/in.txt'), '');
  writeFileSync(path.join(root, 'a/keep.txt'), '');
  writeFileSync(path.join(root, 'top.txt'), '');
  writeFileSync(path.join(outside, 'secret.txt'), '');
  return { root, outside };
}

/** Moves the folder at `at` aside and puts a link to `to` in its place. */
function swapForLink(root: string, at: string, to: string): void {
  renameSync(path.join(root, at), path.join(root, `${at}.aside`));
  symlinkSync(to, path.join(root, at));
}

const base = (root: string, prefix = '') => ({ fdPath: root, prefix });
/** A walk that began well after the tree was written: folders unchanged since are trusted as listed. */
const LATER = () => Date.now() + 5_000;

describe('confirmListed: names from outside the root are left out (issue #33)', () => {
  it('an untouched tree keeps every name, through the base or a prefix', () => {
    const { root } = world();
    const names = ['a/b/in.txt', 'a/keep.txt', 'top.txt'];
    expect(confirmListed(names, base(root), Date.now())).toEqual(names);
    expect(confirmListed(names, base(root), LATER())).toEqual(names);
    expect(
      confirmListed(['a/b/in.txt', 'a/keep.txt'], base(path.join(root, 'a'), 'a/'), Date.now()).length,
    ).toBe(2);
  });

  it('a folder swapped for a link during the walk: the names listed through it are dropped', () => {
    const { root, outside } = world();
    const startedAt = Date.now();
    swapForLink(root, 'a/b', outside);
    expect(confirmListed(['a/b/secret.txt', 'a/keep.txt', 'top.txt'], base(root), startedAt)).toEqual([
      'a/keep.txt',
      'top.txt',
    ]);
  });

  it('swapped back before the check: names that are not in the real folder are dropped, its own are kept', () => {
    const { root, outside } = world();
    const startedAt = Date.now();
    swapForLink(root, 'a/b', outside);
    rmSync(path.join(root, 'a/b'));
    renameSync(path.join(root, 'a/b.aside'), path.join(root, 'a/b'));
    expect(confirmListed(['a/b/secret.txt', 'a/b/in.txt'], base(root), startedAt)).toEqual(['a/b/in.txt']);
  });

  it('a folder deeper down swapped: its parent changed, so what is under it is checked', () => {
    const { root, outside } = world();
    mkdirSync(path.join(outside, 'x'));
    writeFileSync(path.join(outside, 'x/deep.txt'), '');
    const startedAt = Date.now();
    swapForLink(root, 'a', outside);
    expect(confirmListed(['a/x/deep.txt', 'a/secret.txt', 'top.txt'], base(root), startedAt)).toEqual([
      'top.txt',
    ]);
  });

  it('a file written a moment ago changes its folder: the real names there are still kept (checked, not dropped)', () => {
    const { root } = world();
    writeFileSync(path.join(root, 'a/new.txt'), '');
    writeFileSync(path.join(root, 'a/b/new.txt'), '');
    const names = ['a/b/in.txt', 'a/b/new.txt', 'a/keep.txt', 'a/new.txt', 'top.txt'];
    expect(confirmListed(names, base(root), Date.now())).toEqual(names);
  });

  it('a folder gone since the walk keeps none of its names', () => {
    const { root } = world();
    const startedAt = Date.now();
    rmSync(path.join(root, 'a/b'), { recursive: true });
    expect(confirmListed(['a/b/in.txt', 'a/keep.txt'], base(root), startedAt)).toEqual(['a/keep.txt']);
  });
});
