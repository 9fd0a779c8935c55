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

/** `$XDG_STATE_HOME/toolgate/NAME`, else `~/.local/state/toolgate/NAME`: one per OS user. */
export function stateFile(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : undefined;
  return path.join(state ?? path.join(env.HOME || homedir(), '.local', 'state'), 'toolgate', name);
}

/** What a secret file's messages say, and how they fail (a usage error for the CLI, …). */
export interface SecretFileWords {
  /** What it holds, e.g. "toolgate's MCP token". */
  what: string;
  /** The fix besides removing the directory, e.g. "or set TOOLGATE_MCP_TOKEN". */
  elseDir: string;
  /** The fix for a file others could read, e.g. "(toolgate makes a new token on its next start)". */
  elseFile: string;
  /** Why a readable file is refused. */
  whyPrivate: string;
  fail: (message: string) => Error;
}

/**
 * The secret in `file` (32 random bytes, base64url), made the first time, 0600 in a 0700
 * directory. A directory or file that is not this user's, a link, a file others could read or one
 * that holds no secret of this shape is refused: its secret may be known (fail closed). Made under
 * a temporary name and linked into place, so processes starting at once all end up with the one
 * secret that won.
 */
export function loadOrCreateSecret(
  file: string,
  shape: RegExp,
  words: SecretFileWords,
): { secret: string; created: boolean } {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const uid = process.getuid?.();
  const d = lstatSync(dir);
  if (!d.isDirectory() || (uid !== undefined && d.uid !== uid))
    throw words.fail(
      `remove ${dir} (${words.elseDir}): it should be a directory of your own, holding ${words.what}`,
    );
  if ((d.mode & 0o077) !== 0) chmodSync(dir, 0o700); // ours: closed to others before the secret goes in
  const existing = readSecret(file, uid, shape, words);
  if (existing) return { secret: existing, created: false };
  const secret = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${secret}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temp);
  }
  const saved = readSecret(file, uid, shape, words);
  if (!saved) throw words.fail(`remove ${file}: it does not hold ${words.what}`);
  return { secret: saved, created: saved === secret };
}

function readSecret(
  file: string,
  uid: number | undefined,
  shape: RegExp,
  words: SecretFileWords,
): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw words.fail(`remove ${file}: it is a symbolic link, not ${words.what}`);
    throw error;
  }
  try {
    const s = fstatSync(fd);
    if (!s.isFile() || (uid !== undefined && s.uid !== uid) || (s.mode & 0o077) !== 0)
      throw words.fail(
        `remove ${file} ${words.elseFile}: it is not a file only you can read, so ${words.whyPrivate}`,
      );
    const text = readFileSync(fd, 'utf8').trim();
    if (!shape.test(text)) throw words.fail(`remove ${file}: it does not hold ${words.what}`);
    return text;
  } finally {
    closeSync(fd);
  }
}
