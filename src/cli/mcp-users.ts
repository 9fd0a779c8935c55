import { createHash, timingSafeEqual } from 'node:crypto';
import { UsageError } from './usage-error.js';

/** Who a request is: the user a bearer token belongs to, or `undefined` for the shared token. */
export interface TokenCheck {
  /** undefined: no token matched (401). */
  matched: boolean;
  user: string | undefined;
}

const NAME = /^[A-Za-z0-9._@-]{1,64}$/;
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * `TOOLGATE_MCP_USER_TOKENS="alice:TOKEN,bob:TOKEN"`: one bearer token per person. A request's
 * token says who it is, and that is the session's user (whose memory the memory tools use). Names
 * are letters, digits and `._@-`; tokens at least 16 characters; a malformed list stops the
 * server at start instead of letting anyone in.
 */
export function parseUserTokens(text: string | undefined): Map<string, string> {
  const users = new Map<string, string>();
  if (!text?.trim()) return users;
  for (const entry of text
    .split(/[,\n]/)
    .map((e) => e.trim())
    .filter(Boolean)) {
    const at = entry.indexOf(':');
    const name = entry.slice(0, at);
    const token = entry.slice(at + 1);
    if (at < 1 || !NAME.test(name))
      throw new UsageError(
        'TOOLGATE_MCP_USER_TOKENS holds "name:token" entries separated by commas; names are letters, digits and ._@-',
      );
    if (token.length < 16)
      throw new UsageError(`TOOLGATE_MCP_USER_TOKENS: the token of ${name} is shorter than 16 characters`);
    if (users.has(name)) throw new UsageError(`TOOLGATE_MCP_USER_TOKENS names ${name} twice`);
    users.set(name, token);
  }
  return users;
}

/**
 * Which token an `Authorization` header carries: the shared one (TOOLGATE_MCP_TOKEN) or a user's.
 * Every token is compared, in constant time, whatever matched first.
 */
export function checkToken(
  authorization: string | undefined,
  shared: string | undefined,
  users: ReadonlyMap<string, string>,
): TokenCheck {
  const given = digest(authorization ?? '');
  let matched = shared !== undefined && timingSafeEqual(given, digest(`Bearer ${shared}`));
  let user: string | undefined;
  for (const [name, token] of users) {
    if (timingSafeEqual(given, digest(`Bearer ${token}`)) && user === undefined) {
      matched = true;
      user = name;
    }
  }
  return { matched, user };
}
