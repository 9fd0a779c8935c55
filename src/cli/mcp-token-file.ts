import { loadOrCreateSecret, stateFile } from '../config/state-secret-file.js';
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
  return stateFile('mcp-token', env);
}

const TOKEN = /^[A-Za-z0-9_-]{32,}$/;

/**
 * The token in `file`, made (32 random bytes, base64url, mode 0600 in a 0700 directory) the first
 * time. A file or directory another user could read, or that is not ours, stops the server: its
 * token may be known, so it is not used (fail closed).
 */
export function loadOrCreateMcpToken(file: string): { token: string; created: boolean } {
  const { secret, created } = loadOrCreateSecret(file, TOKEN, {
    what: 'a token toolgate made',
    elseDir: 'or set TOOLGATE_MCP_TOKEN',
    elseFile: '(toolgate makes a new token on its next start), or set TOOLGATE_MCP_TOKEN',
    whyPrivate: 'its token may be known to others',
    fail: (message) => new UsageError(message),
  });
  return { token: secret, created };
}
