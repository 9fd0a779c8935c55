import picomatch from 'picomatch';
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
 * The inherited environment minus every variable whose name matches the denylist (secrets), and
 * minus the variables that steer the shell itself (BASH_ENV, exported functions, …).
 */
export function scrubEnv(env: NodeJS.ProcessEnv, extra: readonly string[] = []): NodeJS.ProcessEnv {
  const denied = deniedNames(extra);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !denied(name) && !SHELL_CONTROL_ENV.test(name)) out[name] = value;
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
