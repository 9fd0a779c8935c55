import { constants } from 'node:fs';
import { lstat, open, readdir, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../core/tool-error.js';
import { mapFsError, openDirectoryChain, throughFd } from './safe-fs.js';
import type { ResolvedPath, Sandbox } from './sandbox.js';

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;

// Symlink-safe removal (seed 000 FR-VAL-06): a file, a link itself, or a tree walked level by
// level through descriptors opened with O_NOFOLLOW, from the root's verified directory chain.

/**
 * Removes a file (or a symlink itself: never what it points to) through the verified directory.
 * A directory is refused unless `recursive`, and then its tree is removed without following links.
 */
export async function removeEntry(
  target: ResolvedPath,
  sandbox: Sandbox,
  options: { recursive: boolean },
): Promise<{ kind: 'file' | 'directory' | 'symlink'; removed: number; kept: string[] }> {
  if (target.relative === '.') throw new ToolError('BadArgs', 'cannot delete a root directory itself');
  const name = path.basename(target.absolute);
  const dir = openDirectoryChain(sandbox, path.dirname(target.absolute), {
    create: false,
    relative: target.relative,
  });
  // The removal reaches the disk (its directory flushed) as a write does: after the reply, before
  // the journal's next fsync (docs/DURABILITY.md, "Writes").
  const flushDir = () => sandbox.pendingSyncs.start([dir.release()], target.relative, sandbox);
  try {
    const entry = `${throughFd(dir, path.dirname(target.absolute))}/${name}`;
    const stat = await lstat(entry);
    if (stat.isDirectory()) {
      if (!options.recursive) {
        throw new ToolError(
          'BadArgs',
          `"${target.relative}" is a directory; pass recursive: true to delete it and everything in it`,
        );
      }
      const kept: string[] = [];
      // Denied files inside (keys, toolgate's own state) are left where they are, and said so.
      const keep = (relative: string, absolute: string) => {
        if (!sandbox.isDeniedEntry(relative, absolute)) return false;
        kept.push(relative);
        return true;
      };
      const { removed } = await removeTree(entry, target.relative, target.absolute, keep);
      flushDir();
      return { kind: 'directory', removed, kept };
    }
    await unlink(entry);
    flushDir();
    return { kind: stat.isSymbolicLink() ? 'symlink' : 'file', removed: 1, kept: [] };
  } catch (error) {
    throw mapFsError(error, target.relative);
  } finally {
    dir.close();
  }
}

/** How deep a tree is walked by descriptor (one open per level, two when copying). */
export const MAX_TREE_DEPTH = 128;

/** How much of an entry went: how many entries were removed, and whether the entry itself is gone. */
interface Removal {
  removed: number;
  gone: boolean;
}

/**
 * Deletes a directory tree, opening each level with O_NOFOLLOW so a swapped-in link is never
 * entered. Entries `keep` names (denied ones) stay, and so do the directories holding them. A level
 * is listed again until only kept entries are left, so an entry another process puts back
 * meanwhile goes too (a bounded number of times).
 */
async function removeTree(
  dirPath: string,
  relative: string,
  absolute: string,
  keep: (relative: string, absolute: string) => boolean,
): Promise<Removal> {
  // One descriptor is held per level: a deeper tree would run out of them half-way.
  if (relative.split('/').filter(Boolean).length > MAX_TREE_DEPTH)
    throw new ToolError(
      'LimitExceeded',
      `the tree is more than ${MAX_TREE_DEPTH} levels deep at "${relative}"; nothing deeper is removed (remove it level by level)`,
    );
  const handle = await open(dirPath, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  let removed = 0;
  try {
    const base = throughFd(handle, dirPath);
    for (let pass = 0; ; pass++) {
      let again = false;
      let kept = false;
      for (const entry of await readdir(base, { withFileTypes: true })) {
        const childRelative = `${relative}/${entry.name}`;
        const childAbsolute = path.join(absolute, entry.name);
        if (keep(childRelative, childAbsolute)) {
          kept = true;
          continue;
        }
        const child = await removeChanging(
          `${base}/${entry.name}`,
          childRelative,
          childAbsolute,
          keep,
          entry.isDirectory(),
        );
        removed += child.removed;
        if (child.gone)
          again = true; // listed again: something may have been put back meanwhile
        else kept = true; // a directory holding kept entries
      }
      if (kept) return { removed, gone: false };
      if (again && pass < 20) continue;
      try {
        await rmdir(dirPath);
        return { removed: removed + 1, gone: true };
      } catch (error) {
        // Something was put back between the last listing and now: list again.
        if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || pass >= 20) throw error;
      }
    }
  } finally {
    await handle.close();
  }
}

/**
 * Removes one entry, a tree or not. What it is may change between looking and removing (another
 * process swapping a directory for a link and back): a link or file is unlinked, never followed,
 * and a directory is entered only through a descriptor opened with O_NOFOLLOW; each try follows
 * what the last one found, a bounded number of times.
 */
async function removeChanging(
  entry: string,
  relative: string,
  absolute: string,
  keep: (relative: string, absolute: string) => boolean,
  directory: boolean,
): Promise<Removal> {
  for (let attempt = 0, tree = directory; ; attempt++, tree = !tree) {
    try {
      if (tree) return await removeTree(entry, relative, absolute, keep);
      await unlink(entry);
      return { removed: 1, gone: true };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { removed: 0, gone: true };
      const changed = tree ? code === 'ELOOP' || code === 'ENOTDIR' : code === 'EISDIR' || code === 'EPERM';
      if (!changed || attempt >= 100) throw error;
    }
  }
}

/**
 * Removes a temporary file or tree this process made in the workspace (after a failed copy),
 * level by level through descriptors: a link another process swaps in meanwhile, at any depth, is
 * removed itself and never followed, so nothing outside the tree can be deleted.
 */
export async function removeOwnTemp(entryPath: string): Promise<void> {
  await removeChanging(entryPath, '', entryPath, () => false, true);
}
