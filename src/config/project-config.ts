import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { ToolgateConfig } from './config-schema.js';
import { ConfigError, defaultConfig, parseConfigText, validateConfig } from './load-config.js';
import { type IgnoredSetting, tightenOnly } from './tighten-only.js';
import { readConfigForTrust, readTrustStore, type TrustState, trustOf } from './trust-store.js';

/** How far a config file is believed, and what of it did not apply. */
export interface ConfigTrust {
  /**
   * `explicit`: named with --config (the person's choice); `trusted`: found in the project and
   * trusted as it is; `untrusted`: found in the project, never trusted; `changed`: trusted once,
   * different since; `none`: no file, the built-in defaults.
   */
  state: 'explicit' | 'none' | TrustState;
  /** Settings of an untrusted or changed file that did not apply (empty otherwise). */
  ignored: IgnoredSetting[];
  /** Why the trust store could not be believed, if it could not. */
  storeProblem?: string;
}

export interface ProjectConfig {
  config: ToolgateConfig;
  /** The whole file as written, whether it applies or not (its mistakes are reported all the same). */
  written: ToolgateConfig;
  trust: ConfigTrust;
}

/**
 * A `toolgate.toml` toolgate found by itself (in a root or the working directory): validated in
 * full, so its mistakes are reported as always, then used in full only when the person trusted
 * exactly this file (`toolgate trust`); otherwise only its settings that tighten the policy apply.
 */
export function loadProjectConfig(file: string, env: NodeJS.ProcessEnv = process.env): ProjectConfig {
  let read: ReturnType<typeof readConfigForTrust>;
  try {
    read = readConfigForTrust(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      file,
      undefined,
      undefined,
      `cannot read the file (${code ?? (error as Error).message})`,
    );
  }
  const full = parseConfigText(read.text, file);
  const store = readTrustStore(env);
  const state = trustOf(read, store);
  const storeProblem = store.problem === undefined ? {} : { storeProblem: store.problem };
  if (state === 'trusted')
    return { config: full, written: full, trust: { state, ignored: [], ...storeProblem } };
  const defaults = defaultConfig();
  const { input, ignored } = tightenOnly(
    parseToml(read.text) as Record<string, unknown>,
    defaults,
    path.dirname(path.resolve(file)),
  );
  return {
    config: validateConfig(input, file, read.text),
    written: full,
    trust: { state, ignored, ...storeProblem },
  };
}
