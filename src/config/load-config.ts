import { readFileSync } from 'node:fs';
import { parse as parseToml, TomlError } from 'smol-toml';
import { governancePathProblems } from '../policy/governance-paths.js';
import { configSchema, type ToolgateConfig } from './config-schema.js';
import { locateKey } from './locate-key.js';

/** A config problem: names the file, line and key, and says what is wrong. Nothing runs after one. */
export class ConfigError extends Error {
  readonly file: string;
  readonly line: number | undefined;
  readonly key: string | undefined;

  constructor(file: string, line: number | undefined, key: string | undefined, problem: string) {
    const where = `${file}${line === undefined ? '' : `:${line}`}`;
    super(`config error in ${where}${key ? ` at ${key}` : ''}: ${problem}`);
    this.name = 'ConfigError';
    this.file = file;
    this.line = line;
    this.key = key;
  }
}

export interface LoadedConfig {
  config: ToolgateConfig;
  /** The file it came from, or undefined for the built-in defaults. */
  file: string | undefined;
}

/** Validates a parsed config object; `file`/`text` only sharpen the error message. */
export function validateConfig(value: unknown, file = '(inline config)', text = ''): ToolgateConfig {
  // jitless: a config is parsed once or twice per process, and compiling zod's fast path for every
  // object of the schema (new Function) costs more than the parse it would speed up.
  const parsed = configSchema.safeParse(value, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (!issue) throw new ConfigError(file, undefined, undefined, 'invalid configuration');
    let keyPath = issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part));
    let problem = issue.message;
    if (issue.code === 'unrecognized_keys') {
      keyPath = [...keyPath, issue.keys[0] ?? ''];
      problem = `unknown key "${issue.keys.join('", "')}"; check the spelling (see \`toolgate config schema\`)`;
    }
    const key = keyPath.join('.') || undefined;
    throw new ConfigError(file, text ? locateKey(text, keyPath) : undefined, key, problem);
  }
  checkRegexes(parsed.data, file, text);
  // A path rule that can never match would fail open in forbidden_paths (issue #30 §12).
  const [bad] = governancePathProblems(parsed.data.tools.governance.tools);
  if (bad)
    throw new ConfigError(
      file,
      text ? locateKey(text, bad.keyPath) : undefined,
      bad.keyPath.join('.'),
      bad.problem,
    );
  return parsed.data;
}

function checkRegexes(config: ToolgateConfig, file: string, text: string): void {
  config.tools.policy.rules.forEach((rule, r) => {
    rule.conditions.forEach((condition, c) => {
      if (condition.operator !== 'matches') return;
      for (const source of Array.isArray(condition.value) ? condition.value : [condition.value]) {
        try {
          new RegExp(source, 'u');
        } catch (error) {
          const keyPath = ['tools', 'policy', 'rules', r, 'conditions', c, 'value'];
          throw new ConfigError(
            file,
            locateKey(text, keyPath),
            keyPath.join('.'),
            `invalid regular expression /${source}/: ${(error as Error).message}`,
          );
        }
      }
    });
  });
}

export function parseConfigText(text: string, file: string): ToolgateConfig {
  let value: unknown;
  try {
    value = parseToml(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const firstLine = error.message.split('\n')[0] ?? error.message;
      throw new ConfigError(file, error.line, undefined, `TOML syntax error: ${firstLine}`);
    }
    throw new ConfigError(file, undefined, undefined, `cannot parse: ${(error as Error).message}`);
  }
  return validateConfig(value, file, text);
}

export function loadConfigFile(file: string): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      file,
      undefined,
      undefined,
      `cannot read the file (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  return { config: parseConfigText(text, file), file };
}

export function defaultConfig(): ToolgateConfig {
  return validateConfig({});
}
