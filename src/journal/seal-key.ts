import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { userName } from './own-state-files.js';

/** Where the key is, as messages and docs name it (no path of this machine). */
export const SEAL_KEY_FILE_DOC =
  '$XDG_STATE_HOME/toolgate/seal-key (by default ~/.local/state/toolgate/seal-key)';

/**
 * This user's key for sealing what a SQLite journal must prove it was made by them on this
 * machine (grants, approval answers, governance modes: state-seal.ts): `$XDG_STATE_HOME/toolgate/seal-key`,
 * else `~/.local/state/toolgate/seal-key`, beside the MCP token (mcp-token-file.ts, same care).
 */
export function sealKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : undefined;
  return path.join(state ?? path.join(env.HOME || homedir(), '.local', 'state'), 'toolgate', 'seal-key');
}

const KEY = /^[A-Za-z0-9_-]{43,}$/;

/**
 * The key in `file`, made (32 random bytes, base64url, 0600 in a 0700 directory) the first time.
 * A file or directory that is not this user's, a link, or a file others could read is refused:
 * whoever can read the key can make grants this user's toolgate honours (fail closed).
 */
export function loadOrCreateSealKey(file: string = sealKeyFile()): Buffer {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const uid = process.getuid?.();
  const d = lstatSync(dir);
  if (!d.isDirectory() || (uid !== undefined && d.uid !== uid))
    throw new Error(
      `remove ${dir} (owned by user ${userName(d.uid)}) or set XDG_STATE_HOME to a directory of your own: it should be your own directory, holding toolgate's seal key`,
    );
  if ((d.mode & 0o077) !== 0) chmodSync(dir, 0o700); // ours: closed to others before the key goes in
  const existing = readKey(file, uid);
  if (existing) return existing;
  const key = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${key}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    // link, not rename: two processes starting at once both end up with the one key that won.
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temp);
  }
  const saved = readKey(file, uid);
  if (!saved) throw new Error(`remove ${file}: it does not hold a key toolgate made`);
  return saved;
}

function readKey(file: string, uid: number | undefined): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new Error(`remove ${file}: it is a symbolic link, not toolgate's seal key`);
    throw error;
  }
  try {
    const s = fstatSync(fd);
    if (!s.isFile() || (uid !== undefined && s.uid !== uid) || (s.mode & 0o077) !== 0)
      throw new Error(
        `remove ${file} and revoke your grants (toolgate makes a new key on its next start): it is not a file only you can read, so grants could be forged with it`,
      );
    const text = readFileSync(fd, 'utf8').trim();
    if (!KEY.test(text)) throw new Error(`remove ${file}: it does not hold a key toolgate made`);
    return Buffer.from(text, 'base64url');
  } finally {
    closeSync(fd);
  }
}
