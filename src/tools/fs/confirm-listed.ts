import { closeSync, constants, lstatSync, openSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { VERIFIES_OPENED_PATHS } from '../../sandbox/safe-fs.js';

/**
 * How far a folder's change time may lag the clock read before the walk: the kernel stamps it from
 * a coarse clock (a few ms behind). A second is generous; too generous only costs a check.
 */
const CLOCK_SLACK_MS = 1000;

/**
 * Keeps the names of a finished walk (each `prefix` + a path relative to the base) that are surely
 * inside the root.
 *
 * Ripgrep and tinyglobby walk by path names: a folder that someone swaps for a link between the
 * walk reading its parent and opening it is followed, and the names under it, from anywhere on the
 * machine, come back as if they were inside (contents are never read: grep checks each file it
 * shows). Such a swap changes the parent folder, and its change time cannot be set back (unlike
 * its modification time). So the names of a folder are kept as listed when every folder above it,
 * up to the base, has not changed since the walk began and it is a real folder now. The names of
 * any other folder (a swap, or only a file written there a moment ago) are kept only if that
 * folder, opened now, is really where its path says (no link on the way) and holds them.
 *
 * Cost: one lstat per folder of the answer (~4 ms for node_modules' 900), and for recently
 * changed folders' subfolders an open, readlink and readdir each.
 */
export function confirmListed(
  names: readonly string[],
  base: { fdPath: string; prefix: string },
  startedAt: number,
): string[] {
  const { fdPath, prefix } = base;
  const stats = new Map<string, ReturnType<typeof lstatSync>>();
  const stat = (dir: string) => {
    if (!stats.has(dir))
      stats.set(dir, lstatSync(dir === '' ? `${fdPath}/.` : `${fdPath}/${dir}`, { throwIfNoEntry: false }));
    return stats.get(dir);
  };
  const unchanged = (dir: string) => {
    const s = stat(dir);
    return s?.isDirectory() === true && s.ctimeMs < startedAt - CLOCK_SLACK_MS;
  };
  const trusted = new Map<string, boolean>();
  const trust = (dir: string): boolean => {
    if (dir === '') return true; // the base itself is walked through its verified descriptor
    const known = trusted.get(dir);
    if (known !== undefined) return known;
    const parent = parentOf(dir);
    const result = trust(parent) && unchanged(parent) && stat(dir)?.isDirectory() === true;
    trusted.set(dir, result);
    return result;
  };
  const held = new Map<string, ReadonlySet<string>>();
  let baseReal: string | undefined;
  const holds = (dir: string, name: string): boolean => {
    let entries = held.get(dir);
    if (entries === undefined) {
      baseReal ??= realpathSync.native(fdPath);
      entries = entriesIfReal(`${fdPath}/${dir}`, `${baseReal}/${dir}`);
      held.set(dir, entries);
    }
    return entries.has(name);
  };
  return names.filter((fromRoot) => {
    const name = fromRoot.slice(prefix.length);
    const dir = parentOf(name);
    return trust(dir) || holds(dir, name.slice(dir.length + 1));
  });
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '' : path.slice(0, cut);
}

/** The real path of a folder named by a descriptor link (`/proc/self/fd/N`) or, without /proc, a path. */
function realOf(folder: string): string {
  return VERIFIES_OPENED_PATHS ? readlinkSync(folder) : realpathSync.native(folder);
}

/** The names in `folder`, if it opens as a directory at exactly `expected`; else none. */
function entriesIfReal(folder: string, expected: string): ReadonlySet<string> {
  let fd: number | undefined;
  try {
    fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
    // Judged by what was opened, where /proc shows it; elsewhere by name (safe-fs.ts says when).
    const opened = VERIFIES_OPENED_PATHS ? `/proc/self/fd/${fd}` : folder;
    if (realOf(opened) !== expected) return new Set();
    return new Set(readdirSync(opened));
  } catch {
    return new Set(); // gone or not a folder: none of its names is kept
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
