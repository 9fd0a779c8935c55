import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { snapshotTree } from '../helpers/tree.js';

export const SECRET = 'TOP-SECRET-OUTSIDE-CONTENT';

/**
 * A root full of traps and the world around it: an outside directory with a secret, sibling
 * directories whose names start with the root's name, and symlinks/hardlinks of every kind.
 */
export function makeAttackWorld() {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-attack-')));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), `${SECRET}\n`);
  const siblings = ['root-evil', 'rootx', 'root"', 'root ', 'root\u00a0'];
  for (const s of siblings) {
    mkdirSync(path.join(base, s));
    writeFileSync(path.join(base, s, 'secret.txt'), `${SECRET}\n`);
  }
  writeFileSync(path.join(root, 'inside.txt'), 'inside\n');
  mkdirSync(path.join(root, 'sub'));
  writeFileSync(path.join(root, 'sub', 'inner.txt'), 'inner\n');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-file'));
  symlinkSync(outside, path.join(root, 'link-dir'));
  symlinkSync('../outside', path.join(root, 'rel-link'));
  symlinkSync(path.join(outside, 'created-through-dangling.txt'), path.join(root, 'dangling'));
  symlinkSync('chain2', path.join(root, 'chain1'));
  symlinkSync('link-dir', path.join(root, 'chain2'));
  symlinkSync('loop2', path.join(root, 'loop1'));
  symlinkSync('loop1', path.join(root, 'loop2'));
  symlinkSync(path.join(root, 'sub'), path.join(root, 'in-link'));
  linkSync(path.join(outside, 'secret.txt'), path.join(root, 'hard.txt'));
  execFileSync('mkfifo', [path.join(root, 'fifo')]);
  let device = false;
  try {
    execFileSync('mknod', [path.join(root, 'devnull'), 'c', '1', '3']);
    device = true;
  } catch {
    // not permitted here: the device case is then covered by /dev in safe-fs tests
  }
  const outsideState = () => {
    const state = snapshotTree(outside);
    for (const s of siblings)
      for (const [k, v] of snapshotTree(path.join(base, s))) state.set(`${s}/${k}`, v);
    return state;
  };
  return { base, root, outside, siblings, device, outsideState };
}

/** Every way we know to name something outside (or to smuggle a special meaning into a path). */
export function attackPaths(world: ReturnType<typeof makeAttackWorld>): string[] {
  const { base, outside } = world;
  return [
    '..',
    '../',
    '../outside/secret.txt',
    './../outside/secret.txt',
    'sub/../../outside/secret.txt',
    'sub/../..',
    '..\\outside\\secret.txt',
    'sub\\..\\..\\outside\\secret.txt',
    '../root-evil/secret.txt',
    '../root /secret.txt',
    '../root"/secret.txt',
    '../root\u00a0/secret.txt',
    `${outside}/secret.txt`,
    `${base}/root-evil/secret.txt`,
    `${base}/rootx/secret.txt`,
    `${base}/root"/secret.txt`,
    `${base}/root /secret.txt`,
    `${base}/root\u00a0/secret.txt`,
    '/etc/passwd',
    '/',
    'inside.txt\u0000.png',
    '\u0000',
    'link-file',
    'link-dir/secret.txt',
    'link-dir',
    'rel-link/secret.txt',
    'dangling',
    'chain1/secret.txt',
    'loop1',
    'loop1/x',
    'link-dir/new-file.txt',
    'link-dir/newdir/new-file.txt',
  ];
}

/** Names that look dangerous but are literal names inside the root (nothing is decoded or expanded). */
export const LITERAL_PATHS = [
  '~',
  '~/secret.txt',
  '%2e%2e/outside/secret.txt',
  '%2E%2E%2Fsecret.txt',
  'file:///etc/passwd',
  ' ../x',
];
