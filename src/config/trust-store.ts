import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The project configs a person has trusted (`toolgate trust`): each by where it was found, the
 * file it really is, and the SHA-256 of its bytes. Kept outside every project, in the person's own
 * config directory, so a repository cannot ship its own trust; a file that changes is no longer
 * the one trusted.
 */
export interface TrustEntry {
  /** Where the config was found: the real directory + its name (a symlink stays a symlink here). */
  file: string;
  /** The file it really is, symlinks resolved. */
  real: string;
  sha256: string;
  trusted_at: string;
}

export interface TrustStore {
  /** Where the store is, or would be. */
  location: string;
  entries: TrustEntry[];
  /** Why the store was not read (not private, not ours, damaged): then nothing is trusted. */
  problem?: string;
}

/** A config file read once: its bytes, hash and identity come from the same open descriptor. */
export interface ConfigFileRead {
  file: string;
  real: string;
  text: string;
  sha256: string;
}

/** `$XDG_CONFIG_HOME/toolgate/trusted.json`, else `~/.config/toolgate/trusted.json`. */
export function trustStorePath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'toolgate', 'trusted.json');
}

/**
 * Reads a config file for trust: opened once (a swap between hashing and parsing would change
 * nothing), a regular file, its real path from the descriptor itself where /proc tells it.
 */
export function readConfigForTrust(file: string): ConfigFileRead {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile())
      throw Object.assign(new Error(`${file} is not a regular file`), { code: 'EINVAL' });
    let real: string;
    try {
      real = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      real = realpathSync(file);
    }
    const bytes = readFileSync(fd);
    return {
      file: locationOf(file),
      real,
      text: bytes.toString('utf8'),
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
  } finally {
    closeSync(fd);
  }
}

/** Where a file was found: its directory's real path, its own name kept (it may be a symlink). */
export function locationOf(file: string): string {
  return path.join(realpathSync(path.dirname(path.resolve(file))), path.basename(file));
}

/**
 * The store as it is. A store another user owns, or others may write, is not ours to believe:
 * nothing is trusted then, and `problem` says why.
 */
export function readTrustStore(env: NodeJS.ProcessEnv = process.env): TrustStore {
  const location = trustStorePath(env);
  let text: string;
  try {
    const stat = lstatSync(location);
    if (!stat.isFile()) return { location, entries: [], problem: `${location} is not a regular file` };
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid)
      return { location, entries: [], problem: `${location} belongs to another user` };
    if ((stat.mode & 0o022) !== 0)
      return { location, entries: [], problem: `others may write ${location}; make it private (chmod 600)` };
    text = readFileSync(location, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { location, entries: [] };
    return {
      location,
      entries: [],
      problem: `cannot read ${location} (${(error as NodeJS.ErrnoException).code})`,
    };
  }
  try {
    const parsed = JSON.parse(text) as { version?: unknown; trusted?: unknown };
    if (parsed.version !== 1 || !Array.isArray(parsed.trusted)) throw new Error('unknown format');
    return { location, entries: parsed.trusted.filter(isEntry) };
  } catch (error) {
    return { location, entries: [], problem: `${location} is damaged (${(error as Error).message})` };
  }
}

function isEntry(value: unknown): value is TrustEntry {
  const e = value as Partial<TrustEntry> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.file === 'string' &&
    typeof e.real === 'string' &&
    typeof e.sha256 === 'string' &&
    typeof e.trusted_at === 'string'
  );
}

export type TrustState = 'trusted' | 'changed' | 'untrusted';

/** Trusted only when where it was found, what it really is and its bytes all match one entry. */
export function trustOf(read: ConfigFileRead, store: TrustStore): TrustState {
  const atLocation = store.entries.filter((e) => e.file === read.file);
  if (atLocation.some((e) => e.real === read.real && e.sha256 === read.sha256)) return 'trusted';
  return atLocation.length > 0 ? 'changed' : 'untrusted';
}

/**
 * Writes the store privately and atomically: a directory only the person can enter, a temp file
 * made with mode 0600 beside the store, flushed, then renamed over it.
 */
export function writeTrustStore(location: string, entries: readonly TrustEntry[]): void {
  const dir = path.dirname(location);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = path.join(dir, `.trusted.json.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, `${JSON.stringify({ version: 1, trusted: entries }, null, 2)}\n`);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, location);
}
