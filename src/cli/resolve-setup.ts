import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ToolgateConfig } from '../config/config-schema.js';
import { defaultConfig, loadConfigFile } from '../config/load-config.js';

export interface Setup {
  config: ToolgateConfig;
  configFile: string | undefined;
  roots: string[];
  baseDir: string;
}

/**
 * Config and roots for a CLI command: `--config FILE`, else `./toolgate.toml` when present, else
 * defaults. `--root` (relative to the current directory) overrides the config's allowed_roots, which
 * are relative to the config file's directory.
 */
export function resolveSetup(options: { config?: string; root?: string[] }, cwd = process.cwd()): Setup {
  let configFile: string | undefined;
  if (options.config) configFile = path.resolve(cwd, options.config);
  else if (existsSync(path.join(cwd, 'toolgate.toml'))) configFile = path.join(cwd, 'toolgate.toml');
  const config = configFile ? loadConfigFile(configFile).config : defaultConfig();
  if (options.root && options.root.length > 0) {
    return { config, configFile, roots: options.root, baseDir: cwd };
  }
  return {
    config,
    configFile,
    roots: config.tools.sandbox.allowed_roots,
    baseDir: configFile ? path.dirname(configFile) : cwd,
  };
}
