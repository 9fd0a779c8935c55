import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ToolgateConfig } from '../config/config-schema.js';
import { ConfigError, defaultConfig, loadConfigFile } from '../config/load-config.js';
import { locateKey } from '../config/locate-key.js';
import { type ConfigTrust, loadProjectConfig } from '../config/project-config.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { tellUntrustedOnce } from './untrusted-notice.js';
import { UsageError } from './usage-error.js';

export interface Setup {
  config: ToolgateConfig;
  configFile: string | undefined;
  /** How far the config file is believed (a project's own file only tightens until trusted). */
  trust: ConfigTrust;
  /** The config file as written, all of it: its tool names are checked whether or not they apply. */
  written: ToolgateConfig;
  roots: string[];
  baseDir: string;
}

const CONFIG_NAME = 'toolgate.toml';

/**
 * Which config file applies when `--config` is not given. With `--root`, the project's own
 * `toolgate.toml` in the first root, else `./toolgate.toml`: a project's policy must not be replaced
 * by whatever file sits where a process happened to start (an MCP host starts servers in a
 * directory of its own choosing). Without `--root`, `./toolgate.toml` (DESIGN §2.2).
 */
export function findConfigFile(cwd: string, roots: readonly string[] | undefined): string | undefined {
  const first = roots?.[0];
  if (first !== undefined) {
    const inRoot = path.join(path.resolve(cwd, first), CONFIG_NAME);
    if (existsSync(inRoot)) return inRoot;
  }
  const here = path.join(cwd, CONFIG_NAME);
  return existsSync(here) ? here : undefined;
}

/** A root must be an existing directory: a mistyped one is an error, never created or guessed at. */
function checkRoot(root: string, base: string, fail: (problem: string) => Error): void {
  const absolute = path.resolve(base, root);
  let isDirectory = false;
  try {
    isDirectory = statSync(absolute).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw fail(
      code === 'ENOENT'
        ? `"${root}" does not exist${absolute === root ? '' : ` (${absolute})`}; give an existing directory`
        : `"${root}" cannot be read (${code ?? 'error'}: ${absolute})`,
    );
  }
  if (!isDirectory)
    throw fail(`"${root}" is not a directory (${absolute}); give the folder that holds your project`);
}

/**
 * Config and roots for a CLI command: `--config FILE`, else the first root's `toolgate.toml`, else
 * `./toolgate.toml`, else defaults. A file named with --config is the person's choice and applies
 * in full; a file found in the project applies in full only once trusted (`toolgate trust`), and
 * until then only where it tightens the policy, which stderr is told once per process. `--root`
 * (relative to the current directory) overrides the config's allowed_roots, which are relative to
 * the config file's directory. Every root must exist.
 */
export function resolveSetup(
  options: { config?: string; root?: string[] },
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
  tell: (text: string) => void = (text) => process.stderr.write(sanitizeForTerminal(text)),
): Setup {
  const explicit = Boolean(options.config);
  const configFile = options.config ? path.resolve(cwd, options.config) : findConfigFile(cwd, options.root);
  const { config, written, trust } = loaded(configFile, explicit, env);
  tellUntrustedOnce(configFile, trust, cwd, tell);
  if (options.root && options.root.length > 0) {
    for (const root of options.root) checkRoot(root, cwd, (problem) => new UsageError(`--root ${problem}`));
    return { config, configFile, trust, written, roots: options.root, baseDir: cwd };
  }
  const baseDir = configFile ? path.dirname(configFile) : cwd;
  const roots = config.tools.sandbox.allowed_roots;
  for (const root of roots) {
    checkRoot(root, baseDir, (problem) =>
      configFile
        ? new ConfigError(
            configFile,
            locateKey(readFileSync(configFile, 'utf8'), ['tools', 'sandbox', 'allowed_roots']),
            'tools.sandbox.allowed_roots',
            `${problem} (allowed_roots are relative to this file)`,
          )
        : new UsageError(`allowed root ${problem}`),
    );
  }
  return { config, configFile, trust, written, roots, baseDir };
}

function loaded(
  configFile: string | undefined,
  explicit: boolean,
  env: NodeJS.ProcessEnv,
): { config: ToolgateConfig; written: ToolgateConfig; trust: ConfigTrust } {
  if (!configFile) {
    const config = defaultConfig();
    return { config, written: config, trust: { state: 'none', ignored: [] } };
  }
  if (!explicit) return loadProjectConfig(configFile, env);
  const { config } = loadConfigFile(configFile);
  return { config, written: config, trust: { state: 'explicit', ignored: [] } };
}
