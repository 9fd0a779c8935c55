import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  renameSync,
  type Stats,
  unlinkSync,
  write,
  writeSync,
} from 'node:fs';
import { type FileHandle, lstat, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../core/tool-error.js';
import {
  descriptorCheckMissing,
  descriptorCheckOverridden,
  descriptorCheckWorks,
  systemDescriptorProbe,
} from './descriptor-check.js';
import { DirectoryFd, fsyncDescriptor } from './directory-fd.js';
import type { ResolvedPath, Sandbox } from './sandbox.js';

/**
 * Symlink-safe I/O (seed 000 FR-VAL-06, DESIGN §4). Every path tool goes through these:
 * - reads open with O_NOFOLLOW|O_NONBLOCK and then check, through /proc/self/fd, that the open
 *   descriptor is the validated file inside a root, before one byte is read;
 * - writes walk from the root one directory at a time with O_NOFOLLOW (the openat pattern, via
 *   /proc/self/fd/N/name), write a temp file created exclusively in the verified directory, then
 *   rename (or link, for no-clobber) it into place; nothing is ever written in place.
 */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const HAS_PROC_FD = descriptorCheckWorks();

/**
 * Where the descriptor check cannot run, each use refuses (fail closed, issue #31 §4) unless the
 * person set TOOLGATE_UNSAFE_NO_DESCRIPTOR_CHECK=1; then the weaker path-based fallbacks run.
 * Gates refuse to start there already (requireDescriptorCheck): this holds for tools made directly.
 */
function requireUncheckedAllowed(): void {
  if (!descriptorCheckOverridden()) {
    throw new ToolError('ExecutionFailed', descriptorCheckMissing(systemDescriptorProbe));
  }
}

/**
 * True where every open here checks, through /proc/self/fd, that the file opened is the canonical
 * path asked for: there a path resolved earlier (at planning) is as safe to open as a fresh one.
 */
export const VERIFIES_OPENED_PATHS = HAS_PROC_FD;

/** A path through an open directory descriptor: later lookups start at that inode, not a name. */
export function throughFd(handle: { readonly fd: number }, fallback: string): string {
  return HAS_PROC_FD ? `/proc/self/fd/${handle.fd}` : fallback;
}

/**
 * The same, for a child process: its own /proc/self differs, so it names our pid. A child given
 * this as its cwd starts in the verified directory inode whatever its name points to by then.
 */
export function throughFdForChild(handle: FileHandle, fallback: string): string {
  return HAS_PROC_FD ? `/proc/${process.pid}/fd/${handle.fd}` : fallback;
}

/** True when an opened descriptor's real path lies under `dir` (a canonical directory). */
export async function descriptorIsUnder(handle: FileHandle, dir: string): Promise<boolean> {
  if (!HAS_PROC_FD) {
    requireUncheckedAllowed();
    return true; // overridden knowingly: callers also re-validate, this check is unavailable here
  }
  const actual = readlinkSync(`/proc/self/fd/${handle.fd}`);
  return actual.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

function raced(relative: string): ToolError {
  return new ToolError(
    'SandboxViolation',
    `path "${relative}" changed while it was being opened (a symbolic link appeared); refusing to use it`,
  );
}

export function mapFsError(error: unknown, relative: string): ToolError {
  if (ToolError.isInstance(error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return new ToolError('NotFound', `"${relative}" does not exist`);
    case 'ELOOP':
    case 'EMLINK':
      return new ToolError(
        'SandboxViolation',
        `"${relative}" is a symbolic link; toolgate does not follow links here`,
      );
    case 'EEXIST':
      return new ToolError('AlreadyExists', `"${relative}" already exists`);
    case 'EISDIR':
      return new ToolError('BadArgs', `"${relative}" is a directory, not a file`);
    case 'ENOTDIR':
      return new ToolError('NotFound', `a parent of "${relative}" is not a directory`);
    case 'EACCES':
    case 'EPERM':
      return new ToolError('ExecutionFailed', `permission denied for "${relative}"`);
    case 'ENOSPC':
    case 'EDQUOT':
      return new ToolError('ExecutionFailed', `no space left on the device while writing "${relative}"`, {
        code,
      });
    default:
      // The errno kept apart from the message (which holds a path a model chose): retries read it.
      return new ToolError(
        'ExecutionFailed',
        `cannot access "${relative}" (${code ?? 'unknown error'})`,
        code ? { code } : undefined,
      );
  }
}

/** Checks an open descriptor really is `expected` (no component was swapped for a link meanwhile). */
async function verifyDescriptor(handle: FileHandle, target: ResolvedPath, sandbox: Sandbox, stat: Stats) {
  if (HAS_PROC_FD) {
    // A /proc readlink never blocks on storage: done synchronously, it saves a thread-pool round trip.
    const actual = readlinkSync(`/proc/self/fd/${handle.fd}`);
    if (actual !== target.absolute || !sandbox.rootOf(actual)) throw raced(target.relative);
    return;
  }
  // Without /proc (overridden knowingly): the canonical path must still name the inode we opened.
  requireUncheckedAllowed();
  const again = await lstat(await realpath(target.absolute));
  if (again.dev !== stat.dev || again.ino !== stat.ino) throw raced(target.relative);
}

export interface OpenedFile {
  handle: FileHandle;
  stat: Stats;
}

function describeKind(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/**
 * Cheap pre-check before opening, so devices and FIFOs are never even opened in the common case
 * (sync: one metadata syscall costs less than a thread-pool round trip). Validation resolved links,
 * so a link found here appeared afterwards: a race, never followed.
 */
function checkBeforeOpen(target: ResolvedPath, kind: 'file' | 'directory'): Stats {
  const pre = lstatSync(target.absolute);
  if (pre.isSymbolicLink()) throw raced(target.relative);
  if (kind === 'file' && pre.isDirectory()) {
    throw new ToolError(
      'BadArgs',
      `"${target.relative}" is a directory; use list_directory to see what it holds`,
    );
  }
  if (kind === 'directory' && pre.isFile()) {
    throw new ToolError('BadArgs', `"${target.relative}" is a file, not a directory; use read_file`);
  }
  if (!pre.isFile() && !pre.isDirectory()) {
    throw new ToolError(
      'BadArgs',
      `"${target.relative}" is ${describeKind(pre)}; only regular files and directories can be read`,
    );
  }
  return pre;
}

/** Opens a validated path for reading: a regular file, or a directory when `kind` says so. */
export async function openForRead(
  target: ResolvedPath,
  sandbox: Sandbox,
  kind: 'file' | 'directory',
): Promise<OpenedFile> {
  try {
    checkBeforeOpen(target, kind);
  } catch (error) {
    throw mapFsError(error, target.relative);
  }
  const flags = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (kind === 'directory' ? O_DIRECTORY : 0);
  let handle: FileHandle;
  try {
    handle = await open(target.absolute, flags);
  } catch (error) {
    throw mapFsError(error, target.relative);
  }
  try {
    const stat = await handle.stat();
    const rightKind = kind === 'file' ? stat.isFile() : stat.isDirectory();
    if (!rightKind) {
      throw new ToolError('BadArgs', `"${target.relative}" is ${describeKind(stat)}; refusing to read it`);
    }
    await verifyDescriptor(handle, target, sandbox, stat);
    return { handle, stat };
  } catch (error) {
    await handle.close();
    throw mapFsError(error, target.relative);
  }
}

/**
 * Opens (creating when asked) the directory `dirAbsolute` by walking from its root one component at
 * a time with O_NOFOLLOW, so no symlink anywhere on the way is followed, even one swapped in now.
 * Synchronous: each step is one metadata syscall, far cheaper than a thread-pool round trip (about
 * 50 µs each here, and a write made a dozen of them).
 */
export function openDirectoryChain(
  sandbox: Sandbox,
  dirAbsolute: string,
  options: { create: boolean; relative: string },
): DirectoryFd {
  const root = sandbox.rootOf(dirAbsolute);
  if (!root) throw new ToolError('SandboxViolation', `"${options.relative}" is outside the allowed roots`);
  if (!HAS_PROC_FD) requireUncheckedAllowed(); // the walk below goes by name then, not by descriptor
  const parts = path.relative(root, dirAbsolute).split(path.sep).filter(Boolean);
  let dir: DirectoryFd;
  try {
    dir = new DirectoryFd(openSync(root, constants.O_RDONLY | O_DIRECTORY));
  } catch (error) {
    throw mapFsError(error, options.relative);
  }
  let walked = root;
  try {
    for (const part of parts) {
      walked = path.join(walked, part);
      const next = `${throughFd(dir, path.dirname(walked))}/${part}`;
      if (options.create) {
        try {
          mkdirSync(next, { mode: 0o755 });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
      }
      let child: DirectoryFd;
      try {
        child = new DirectoryFd(openSync(next, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ELOOP' || code === 'ENOTDIR') {
          throw new ToolError(
            'SandboxViolation',
            `"${sandbox.display(walked)}" is not a plain directory (a symbolic link or a file); refusing to write through it`,
          );
        }
        throw error;
      }
      dir.close();
      dir = child;
    }
    return dir;
  } catch (error) {
    dir.close();
    throw mapFsError(error, options.relative);
  }
}

export interface WriteOptions {
  /** Replace an existing file; false fails with AlreadyExists, atomically (no clobber race). */
  overwrite: boolean;
  /** Create missing parent directories. */
  createParents: boolean;
}

export interface WriteOutcome {
  created: boolean;
  bytes: number;
}

/**
 * Writes `data` to a validated path: temp file created exclusively in the verified directory, then
 * renamed into place (after an fsync, when it replaces a file) or linked (a new name, no clobber).
 * The old inode is never modified, so a hardlink to a file outside keeps its content, and a symlink
 * at the target is replaced, not followed. The directory (and a new file's data) are flushed by
 * `sandbox.pendingSyncs`, which the pipeline awaits before the next side-effecting call.
 */
export async function writeFileAtomic(
  target: ResolvedPath,
  sandbox: Sandbox,
  data: string | Uint8Array,
  options: WriteOptions,
): Promise<WriteOutcome> {
  if (target.relative === '.') throw new ToolError('BadArgs', 'cannot write to a root directory itself');
  const name = path.basename(target.absolute);
  const dir = openDirectoryChain(sandbox, path.dirname(target.absolute), {
    create: options.createParents,
    relative: target.relative,
  });
  const dirPath = throughFd(dir, path.dirname(target.absolute));
  const finalPath = `${dirPath}/${name}`;
  const tempPath = `${dirPath}/.${name}.toolgate-${randomBytes(6).toString('hex')}.tmp`;
  let temp: number | undefined;
  try {
    let existing: Stats | undefined;
    try {
      existing = lstatSync(finalPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (existing?.isDirectory())
      throw new ToolError('BadArgs', `"${target.relative}" is a directory, not a file`);
    if (existing && !options.overwrite) {
      throw new ToolError(
        'AlreadyExists',
        `"${target.relative}" already exists; pass overwrite: true to replace it`,
      );
    }
    if (existing && !existing.isFile() && !existing.isSymbolicLink()) {
      throw new ToolError(
        'BadArgs',
        `"${target.relative}" is ${describeKind(existing)}; refusing to replace it`,
      );
    }
    const mode = existing?.isFile() ? existing.mode & 0o7777 : 0o644;
    temp = openSync(tempPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, mode);
    const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    await writeAll(temp, buffer);
    if (existing) {
      // Replacing: the new bytes are on disk before the name moves, so a power loss leaves the old
      // file or the new one, never an empty one.
      await fsyncDescriptor(temp);
      const fd = temp;
      temp = undefined; // closed here, never twice (a failing close must not close a reused number)
      closeSync(fd);
      try {
        renameSync(tempPath, finalPath);
      } catch (error) {
        unlinkQuietly(tempPath);
        throw error;
      }
      sandbox.pendingSyncs.start([dir.release()], target.relative, sandbox);
    } else {
      try {
        // link() fails with EEXIST if something appeared meanwhile: never clobber a racing file.
        linkSync(tempPath, finalPath);
        unlinkSync(tempPath);
      } catch (error) {
        unlinkQuietly(tempPath);
        throw error;
      }
      // A new name: nothing older can be lost, so its data and entry are flushed after the reply,
      // and before anything that depends on them (PendingSyncs).
      const fds = [temp, dir.release()];
      temp = undefined;
      sandbox.pendingSyncs.start(fds, target.relative, sandbox);
    }
    return { created: !existing, bytes: buffer.byteLength };
  } catch (error) {
    if (temp !== undefined) closeSync(temp);
    unlinkQuietly(tempPath);
    throw mapFsError(error, target.relative);
  } finally {
    dir.close();
  }
}

/** Up to this size the bytes are copied to the file on the event loop (a thread-pool hop costs more). */
const SYNC_WRITE_BYTES = 1 << 20;

/** Writes every byte of `buffer` at the descriptor's position; large buffers in the thread pool. */
async function writeAll(fd: number, buffer: Uint8Array): Promise<void> {
  if (buffer.byteLength <= SYNC_WRITE_BYTES) {
    for (let done = 0; done < buffer.byteLength; ) done += writeSync(fd, buffer, done);
    return;
  }
  for (let done = 0; done < buffer.byteLength; ) {
    done += await new Promise<number>((resolve, reject) =>
      write(fd, buffer, done, buffer.byteLength - done, null, (error, n) =>
        error ? reject(error) : resolve(n),
      ),
    );
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone (or never made): nothing to clean up
  }
}

/**
 * The fast path for a small regular file: the same checks as `openForRead` (no link followed, a
 * regular file, the descriptor verified through /proc), done with synchronous syscalls. For a file
 * of at most `maxBytes`, each async call would cost a thread-pool round trip worth more than the
 * read itself. Returns undefined when the file is larger (use the streaming path then).
 */
export function readSmallFileVerified(
  target: ResolvedPath,
  sandbox: Sandbox,
  maxBytes: number,
): { bytes: Buffer; stat: Stats } | undefined {
  let fd: number | undefined;
  try {
    const pre = checkBeforeOpen(target, 'file');
    if (pre.size > maxBytes) return undefined;
    fd = openSync(target.absolute, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new ToolError('BadArgs', `"${target.relative}" is ${describeKind(stat)}; refusing to read it`);
    if (HAS_PROC_FD) {
      const actual = readlinkSync(`/proc/self/fd/${fd}`);
      if (actual !== target.absolute || !sandbox.rootOf(actual)) throw raced(target.relative);
    } else requireUncheckedAllowed();
    if (stat.size > maxBytes) return undefined;
    // Unzeroed (only the bytes read are handed out) and unpooled (holding it holds nothing else).
    const bytes = Buffer.allocUnsafeSlow(stat.size);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return { bytes: got === bytes.length ? bytes : bytes.subarray(0, got), stat };
  } catch (error) {
    throw mapFsError(error, target.relative);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
