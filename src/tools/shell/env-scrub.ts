import picomatch from 'picomatch';
import { holdsPassword } from '../../output/redact-url.js';
import { hideFromOwnEnviron } from './hide-own-environ.js';
import { SHELL_CONTROL_ENV } from './shell-tables.js';

/** seed 000 CFG-ENV-01 defaults; the config's list is added to these, never replaces them. */
export const DEFAULT_ENV_DENYLIST: readonly string[] = [
  '*_KEY',
  '*_TOKEN',
  '*_SECRET',
  '*_PASSWORD',
  '*_CREDENTIALS',
  'AWS_*',
  'ANTHROPIC_*',
  'OPENAI_*',
  'GITHUB_TOKEN',
  'NPM_TOKEN',
];

/**
 * Names no command ever receives, whatever the config says (issue #30 §8): toolgate's own settings
 * and tokens (every TOOLGATE_*), every libpq variable (PG*: PGPASSWORD, PGPASSFILE, PGSERVICEFILE,
 * PGSSLKEY … and PGHOST/PGUSER, which with a trusted or peer login are a credential too), database
 * URLs, and the names passwords and tokens go by that the denylist's `*_X` patterns miss.
 */
const CREDENTIAL_NAME =
  /^(?:TOOLGATE_|PG)|DATABASE_URL|PASSW(?:OR)?D|PASSPHRASE|_PWD$|^TOKENS?$|_TOKENS$|^SECRETS?$|_SECRETS?$|^DSN$|_DSN$|API_?KEYS?$|_KEYS$|_KEY_ID$|ACCESS_KEY|JWT|COOKIE|AUTH_?TOKEN|_AUTH$|AUTH_HEADER|AUTH_CONFIG|^npm_config_.*auth|CREDENTIAL/i;

/** A value that is a credential whatever its name: an HTTP authorization header's value. */
const CREDENTIAL_VALUE = /^\s*(?:Bearer|Basic|Token)\s+\S{8,}/i;

/**
 * Toolgate's own credentials and anything shaped like one: a credential's name, or a value that is
 * a URL with a password or holds a `password=` setting. Not a list the config can shorten.
 */
export function isCredential(name: string, value: string): boolean {
  return CREDENTIAL_NAME.test(name) || CREDENTIAL_VALUE.test(value) || holdsPassword(value);
}

/**
 * The inherited environment minus toolgate's own credentials and every credential-shaped variable
 * (`isCredential`), minus every variable whose name matches the denylist (secrets), and minus the
 * variables that steer the shell itself (BASH_ENV, exported functions, …). Given toolgate's own
 * environment, it also takes those values out of what `/proc/<toolgate>/environ` shows.
 */
export function scrubEnv(env: NodeJS.ProcessEnv, extra: readonly string[] = []): NodeJS.ProcessEnv {
  const denied = deniedNames(extra);
  const secret = (name: string, value: string) => isCredential(name, value) || denied(name);
  if (env === process.env) hideFromOwnEnviron(secret);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !secret(name, value) && !SHELL_CONTROL_ENV.test(name)) out[name] = value;
  }
  return out;
}

const matchers = new Map<string, (name: string) => boolean>();

/** The denylist as one matcher, compiled once per list (it is asked for every command). */
function deniedNames(extra: readonly string[]): (name: string) => boolean {
  const key = extra.join('\0');
  let matcher = matchers.get(key);
  if (!matcher) {
    const nocase = process.platform === 'win32';
    matcher = picomatch([...DEFAULT_ENV_DENYLIST, ...extra], { nocase, dot: true });
    if (matchers.size >= 16) matchers.clear();
    matchers.set(key, matcher);
  }
  return matcher;
}

/**
 * The environment for a command under the OS sandbox: the scrubbed one, plus only what the sandbox
 * wrapper added or changed (its proxies). The wrapper hands back the whole parent environment, and
 * merging that back would return every secret the scrub removed.
 */
export function withSandboxEnv(
  scrubbed: NodeJS.ProcessEnv,
  wrapperEnv: NodeJS.ProcessEnv,
  parent: NodeJS.ProcessEnv,
  extra: readonly string[] = [],
): NodeJS.ProcessEnv {
  const added: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(wrapperEnv)) {
    if (value !== undefined && parent[name] !== value) added[name] = value;
  }
  return { ...scrubbed, ...scrubEnv(added, extra) };
}
