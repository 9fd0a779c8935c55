import picomatch from 'picomatch';

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

/** The inherited environment minus every variable whose name matches the denylist. */
export function scrubEnv(env: NodeJS.ProcessEnv, extra: readonly string[] = []): NodeJS.ProcessEnv {
  const nocase = process.platform === 'win32';
  const denied = picomatch([...DEFAULT_ENV_DENYLIST, ...extra], { nocase, dot: true });
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !denied(name)) out[name] = value;
  }
  return out;
}
