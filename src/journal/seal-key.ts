import { loadOrCreateSecret, stateFile } from '../config/state-secret-file.js';

/** Where the key is, as messages and docs name it (no path of this machine). */
export const SEAL_KEY_FILE_DOC =
  '$XDG_STATE_HOME/toolgate/seal-key (by default ~/.local/state/toolgate/seal-key)';

/**
 * This user's key for sealing what a SQLite journal must prove it was made by them on this
 * machine (grants, approval answers, governance modes: state-seal.ts): `$XDG_STATE_HOME/toolgate/seal-key`,
 * else `~/.local/state/toolgate/seal-key`, beside the MCP token (mcp-token-file.ts, same care).
 */
export function sealKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  return stateFile('seal-key', env);
}

const KEY = /^[A-Za-z0-9_-]{43,}$/;

/**
 * The key in `file`, made (32 random bytes, base64url, 0600 in a 0700 directory) the first time.
 * A file or directory that is not this user's, a link, or a file others could read is refused:
 * whoever can read the key can make grants this user's toolgate honours (fail closed).
 */
export function loadOrCreateSealKey(file: string = sealKeyFile()): Buffer {
  const { secret } = loadOrCreateSecret(file, KEY, {
    what: 'a seal key toolgate made',
    elseDir: 'or set XDG_STATE_HOME to a directory of your own',
    elseFile: 'and revoke your grants (toolgate makes a new key on its next start)',
    whyPrivate: 'grants could be forged with it',
    fail: (message) => new Error(message),
  });
  return Buffer.from(secret, 'base64url');
}
