import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, link, lstat, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../core/tool-error.js';
import { MAX_TREE_DEPTH, removeOwnTemp } from '../../sandbox/remove-entry.js';
import { mapFsError, openDirectoryChain, openForRead, throughFd } from '../../sandbox/safe-fs.js';
import type { ResolvedPath, Sandbox } from '../../sandbox/sandbox.js';

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const CHUNK = 1024 * 1024;

export interface CopyLimits {
  maxBytes: number;
  maxFiles: number;
}

export interface CopiedFile {
  /** Relative to the copied directory ('' for a single file). */
  path: string;
  bytes: number;
  sha256: string;
}

export interface CopyOutcome {
  kind: 'file' | 'directory';
  files: CopiedFile[];
  bytes: number;
  /** A file: its SHA-256. A tree: the SHA-256 of its manifest (`sha256sum` lines, paths in byte order). */
  sha256: string;
  /** Entries left behind: links, devices, FIFOs, sockets, and paths the vault's own denials cover. */
  skipped: string[];
}

/** What one copy has used of its limits so far. */
class Budget {
  bytes = 0;
  files = 0;
  constructor(
    private readonly limits: CopyLimits,
    private readonly signal: AbortSignal,
  ) {}

  /** One more file or directory made in the workspace: each counts against max_files. */
  file(): void {
    if (this.signal.aborted) throw this.signal.reason;
    if (++this.files > this.limits.maxFiles)
      throw new ToolError(
        'LimitExceeded',
        `the tree holds more than ${this.limits.maxFiles} files and directories; copy a smaller part, or raise [tools.vault] max_files`,
      );
  }

  add(n: number): void {
    this.bytes += n;
    if (this.bytes > this.limits.maxBytes)
      throw new ToolError(
        'LimitExceeded',
        `more than ${this.limits.maxBytes} bytes to copy; copy a smaller part, or raise [tools.vault] max_bytes`,
      );
  }
}

/**
 * Copies a vault file or directory tree into the workspace (vault_copyto). Both sides are verified
 * I/O: the source is opened through its vault's sandbox (the descriptor checked to be the path
 * asked for) and walked by descriptor with O_NOFOLLOW, so no link in the vault, swapped in or not,
 * can redirect a read; the destination's parent is opened one component at a time with O_NOFOLLOW,
 * and everything is written under a temporary name there, then renamed into place: a reader sees
 * nothing or the whole copy. Links and special files in a tree are skipped and named, never followed.
 */
export async function copyFromVault(
  source: ResolvedPath,
  vault: Sandbox,
  destination: ResolvedPath,
  workspace: Sandbox,
  options: {
    overwrite: boolean;
    limits: CopyLimits;
    signal: AbortSignal;
    /**
     * Judges a path the copy would create, relative to the destination (`a/b.txt`): throws the
     * workspace sandbox's refusal (a denied pattern, git internals, a gitfile, toolgate's own files).
     */
    judge: (relative: string) => void;
  },
): Promise<CopyOutcome> {
  if (destination.relative === '.')
    throw new ToolError('BadArgs', 'the destination is a root itself; name a new file or directory in it');
  const pre = await lstat(source.absolute).catch((error: unknown) => {
    throw mapFsError(error, source.relative);
  });
  const budget = new Budget(options.limits, options.signal);
  if (pre.isDirectory()) {
    // Every path the tree would create is judged before anything is written, the destination's
    // parents included (issue #30 §11): the destination passing says nothing of the `config` that
    // would land in `X/.git/modules/m/`.
    const look = await openForRead(source, vault, 'directory');
    try {
      await judgeTree(look.handle, '', {
        source,
        vault,
        judge: judgeWhole(options.judge),
        room: { left: options.limits.maxFiles + 1 },
      });
    } finally {
      await look.handle.close();
    }
  }
  const parent = openDirectoryChain(workspace, path.dirname(destination.absolute), {
    create: true,
    relative: destination.relative,
  });
  const name = path.basename(destination.absolute);
  const parentPath = throughFd(parent, path.dirname(destination.absolute));
  const finalPath = `${parentPath}/${name}`;
  const tempPath = `${parentPath}/.${name}.toolgate-${randomBytes(6).toString('hex')}.tmp`;
  try {
    const existing = await lstat(finalPath).catch(() => undefined);
    if (pre.isDirectory()) {
      if (existing)
        throw new ToolError(
          'AlreadyExists',
          `"${destination.relative}" already exists; a tree is never merged into what is there: name a new directory`,
        );
      const files: CopiedFile[] = [];
      const skipped: string[] = [];
      const from = await openForRead(source, vault, 'directory');
      try {
        await mkdir(tempPath, { mode: 0o755 });
        const into = await open(tempPath, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        try {
          await copyTree(from.handle, into, '', {
            source,
            vault,
            budget,
            files,
            skipped,
            intoRoot: path.join(path.dirname(destination.absolute), path.basename(tempPath)),
            // Judged again as copied: a tree changed since the first look is still refused whole.
            judge: judgeWhole(options.judge),
          });
        } finally {
          await into.close();
        }
      } finally {
        await from.handle.close();
      }
      // Nothing may have appeared at the name meanwhile: a rename would replace an empty directory.
      if (await lstat(finalPath).catch(() => undefined))
        throw new ToolError(
          'AlreadyExists',
          `"${destination.relative}" appeared while copying; nothing was replaced`,
        );
      await rename(tempPath, finalPath);
      await parent.sync().catch(() => {});
      files.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
      const manifest = files.map((f) => `${f.sha256}  ${f.path}\n`).join('');
      return {
        kind: 'directory',
        files,
        bytes: budget.bytes,
        sha256: createHash('sha256').update(manifest).digest('hex'),
        skipped,
      };
    }
    if (existing?.isDirectory())
      throw new ToolError(
        'BadArgs',
        `"${destination.relative}" is a directory; name the file to create in it`,
      );
    if (existing && !options.overwrite)
      throw new ToolError(
        'AlreadyExists',
        `"${destination.relative}" already exists; pass overwrite: true to replace it`,
      );
    if (existing && !existing.isFile() && !existing.isSymbolicLink())
      throw new ToolError(
        'BadArgs',
        `"${destination.relative}" is not a regular file; refusing to replace it`,
      );
    const from = await openForRead(source, vault, 'file');
    let copied: CopiedFile;
    try {
      budget.file();
      copied = await copyFile(from.handle, tempPath, from.stat.mode, '', budget);
    } finally {
      await from.handle.close();
    }
    if (existing) await rename(tempPath, finalPath);
    else {
      await link(tempPath, finalPath); // EEXIST if something appeared meanwhile: never clobbered
      await unlink(tempPath);
    }
    await parent.sync().catch(() => {});
    return { kind: 'file', files: [copied], bytes: copied.bytes, sha256: copied.sha256, skipped: [] };
  } catch (error) {
    await removeOwnTemp(tempPath).catch(() => {});
    if (options.signal.aborted) throw error;
    throw mapFsError(error, destination.relative);
  } finally {
    parent.close();
  }
}

interface Walk {
  source: ResolvedPath;
  vault: Sandbox;
  budget: Budget;
  files: CopiedFile[];
  skipped: string[];
  judge: (relative: string) => void;
}

/** The judge, its refusal said as the refusal of the whole copy. */
function judgeWhole(judge: (relative: string) => void): (relative: string) => void {
  return (relative) => {
    try {
      judge(relative);
    } catch (error) {
      if (!ToolError.isInstance(error)) throw error;
      throw new ToolError(
        error.type,
        `copy another part of the tree, or to another destination; nothing was copied: ${error.message}`,
        error.metadata,
      );
    }
  };
}

/**
 * Walks the tree as `copyTree` will (by descriptor, links never followed, the vault's denied
 * entries left out) and judges each path it would create, up to the file cap; writes nothing.
 */
async function judgeTree(
  from: FileHandle,
  rel: string,
  walk: Pick<Walk, 'source' | 'vault' | 'judge'> & { room: { left: number } },
): Promise<void> {
  const fromPath = throughFd(from, rel ? path.join(walk.source.absolute, rel) : walk.source.absolute);
  for (const entry of await readdir(fromPath, { withFileTypes: true })) {
    const childRel = rel ? `${rel}/${entry.name}` : entry.name;
    const inVault = walk.source.relative === '.' ? childRel : `${walk.source.relative}/${childRel}`;
    if (walk.vault.isDeniedEntry(inVault, path.join(walk.source.absolute, childRel))) continue;
    if (!entry.isDirectory() && !entry.isFile()) continue;
    // Past the file cap the copy fails anyway; copyTree judges each entry before writing it.
    if (--walk.room.left < 0) return;
    walk.judge(childRel);
    if (!entry.isDirectory() || childRel.split('/').length > MAX_TREE_DEPTH) continue;
    let sub: FileHandle;
    try {
      sub = await open(`${fromPath}/${entry.name}`, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch {
      continue; // changed into a link or a file: copyTree skips or judges it again
    }
    try {
      await judgeTree(sub, childRel, walk);
    } finally {
      await sub.close();
    }
  }
}

/**
 * Copies what `from` holds into `into`, both open directories, by descriptor all the way down
 * (their paths are used only where /proc is missing).
 */
async function copyTree(
  from: FileHandle,
  into: FileHandle,
  rel: string,
  walk: Walk & { intoRoot: string },
): Promise<void> {
  const fromPath = throughFd(from, rel ? path.join(walk.source.absolute, rel) : walk.source.absolute);
  const intoPath = throughFd(into, rel ? path.join(walk.intoRoot, rel) : walk.intoRoot);
  const entries = await readdir(fromPath, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const childRel = rel ? `${rel}/${entry.name}` : entry.name;
    const inVault = walk.source.relative === '.' ? childRel : `${walk.source.relative}/${childRel}`;
    if (walk.vault.isDeniedEntry(inVault, path.join(walk.source.absolute, childRel))) {
      walk.skipped.push(`${childRel} (denied)`);
      continue;
    }
    if (entry.isDirectory() || entry.isFile()) walk.judge(childRel);
    if (entry.isDirectory()) {
      if (childRel.split('/').length > MAX_TREE_DEPTH)
        throw new ToolError(
          'LimitExceeded',
          `the tree is more than ${MAX_TREE_DEPTH} levels deep at "${childRel}"; copy a part of it`,
        );
      let sub: FileHandle;
      try {
        sub = await open(`${fromPath}/${entry.name}`, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (error) {
        if (
          (error as NodeJS.ErrnoException).code === 'ELOOP' ||
          (error as NodeJS.ErrnoException).code === 'ENOTDIR'
        ) {
          walk.skipped.push(`${childRel} (changed into a link while copying)`);
          continue;
        }
        throw error;
      }
      try {
        walk.budget.file();
        await mkdir(`${intoPath}/${entry.name}`, { mode: 0o755 });
        const target = await open(`${intoPath}/${entry.name}`, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        try {
          await copyTree(sub, target, childRel, walk);
        } finally {
          await target.close();
        }
      } finally {
        await sub.close();
      }
    } else if (entry.isFile()) {
      let file: FileHandle;
      try {
        file = await open(`${fromPath}/${entry.name}`, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
          walk.skipped.push(`${childRel} (changed into a link while copying)`);
          continue;
        }
        throw error;
      }
      try {
        const stat = await file.stat();
        if (!stat.isFile()) {
          walk.skipped.push(`${childRel} (not a regular file)`);
          continue;
        }
        walk.budget.file();
        walk.files.push(await copyFile(file, `${intoPath}/${entry.name}`, stat.mode, childRel, walk.budget));
      } finally {
        await file.close();
      }
    } else {
      walk.skipped.push(`${childRel} (${entry.isSymbolicLink() ? 'symbolic link' : 'not a regular file'})`);
    }
  }
}

/** Streams an open file into a new file at `to` (created exclusively, never through a link), hashing it. */
async function copyFile(
  from: FileHandle,
  to: string,
  mode: number,
  rel: string,
  budget: Budget,
): Promise<CopiedFile> {
  const out = await open(
    to,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
    mode & 0o777,
  );
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  let bytes = 0;
  try {
    for (;;) {
      const { bytesRead } = await from.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      budget.add(bytesRead);
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      await out.write(chunk);
      bytes += bytesRead;
    }
    await out.sync();
  } finally {
    await out.close();
  }
  return { path: rel, bytes, sha256: hash.digest('hex') };
}
