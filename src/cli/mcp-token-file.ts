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
import { UsageError } from './usage-error.js';

/** Where the file is, as the docs and the 401 answer name it (no path of this machine). */
export const MCP_TOKEN_FILE_DOC =
  '$XDG_STATE_HOME/toolgate/mcp-token (by default ~/.local/state/toolgate/mcp-token)';

/**
 * The file holding `toolgate mcp --http`'s generated bearer token: `$XDG_STATE_HOME/toolgate/mcp-token`,
 * else `~/.local/state/toolgate/mcp-token`. One per OS user, not per project or port: a client set
 * up once keeps working across restarts, and only that user can read it.
 */
export function mcpTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : undefined;
  return path.join(state ?? path.join(env.HOME || homedir(), '.local', 'state'), 'toolgate', 'mcp-token');
}

const TOKEN = /^[A-Za-z0-9_-]{32,}$/;

/**
 * The token in `file`, made (32 random bytes, base64url, mode 0600 in a 0700 directory) the first
 * time. A file or directory another user could read, or that is not ours, stops the server: its
 * token may be known, so it is not used (fail closed).
 */
export function loadOrCreateMcpToken(file: string): { token: string; created: boolean } {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const uid = process.getuid?.();
  const d = lstatSync(dir);
  if (!d.isDirectory() || (uid !== undefined && d.uid !== uid)) {
    throw new UsageError(
      `remove ${dir} (or set TOOLGATE_MCP_TOKEN): it should be a directory of your own, holding toolgate's MCP token`,
    );
  }
  if ((d.mode & 0o077) !== 0) chmodSync(dir, 0o700); // ours: closed to others before the token goes in
  const existing = readToken(file, uid);
  if (existing) return { token: existing, created: false };
  const token = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${token}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    // link, not rename: two servers starting at once both end up with the one token that won.
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temp);
  }
  const saved = readToken(file, uid);
  if (!saved) throw new UsageError(`remove ${file}: it does not hold a token toolgate made`);
  return { token: saved, created: saved === token };
}

/** The token in an existing file (undefined when there is none); a file others can read is refused. */
function readToken(file: string, uid: number | undefined): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new UsageError(`remove ${file}: it is a symbolic link, not toolgate's token`);
    throw error;
  }
  try {
    const s = fstatSync(fd);
    if (!s.isFile() || (uid !== undefined && s.uid !== uid) || (s.mode & 0o077) !== 0) {
      throw new UsageError(
        `remove ${file} (toolgate makes a new token on its next start), or set TOOLGATE_MCP_TOKEN: it is not a file only you can read, so its token may be known to others`,
      );
    }
    const token = readFileSync(fd, 'utf8').trim();
    if (!TOKEN.test(token)) throw new UsageError(`remove ${file}: it does not hold a token toolgate made`);
    return token;
  } finally {
    closeSync(fd);
  }
}
