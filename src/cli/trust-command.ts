import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { defaultConfig, parseConfigText } from '../config/load-config.js';
import { tightenOnly } from '../config/tighten-only.js';
import {
  locationOf,
  readConfigForTrust,
  readTrustStore,
  type TrustEntry,
  writeTrustStore,
} from '../config/trust-store.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { UsageError } from './usage-error.js';

export interface TrustOptions {
  list?: boolean;
  revoke?: boolean;
}

/**
 * `toolgate trust [DIR]`: the person vouches for the project's `toolgate.toml` as it is now, so
 * toolgate uses all of it (until it changes). `--list` shows what is trusted, `--revoke` takes a
 * file's trust back. The store lives in the person's config directory, never in the project.
 */
export function runTrust(
  target: string | undefined,
  options: TrustOptions,
  out: NodeJS.WritableStream,
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): number {
  const store = readTrustStore(env);
  if (options.list) {
    if (store.problem) throw new UsageError(`fix the trust store first: ${store.problem}`);
    if (store.entries.length === 0) out.write(`nothing is trusted (${store.location})\n`);
    for (const e of store.entries)
      out.write(`${e.file}  sha256 ${e.sha256.slice(0, 16)}…  since ${e.trusted_at}\n`);
    return 0;
  }
  const file = configFileIn(path.resolve(cwd, target ?? '.'));
  if (options.revoke) {
    const location = locationOf(file);
    const kept = store.problem ? [] : store.entries.filter((e) => e.file !== location);
    writeTrustStore(store.location, kept);
    out.write(
      `${location} is no longer trusted: toolgate applies only its settings that tighten the policy\n`,
    );
    return 0;
  }
  const storeDir = path.dirname(store.location);
  const projectDir = realDir(path.dirname(file));
  if (inside(realDir(storeDir), projectDir))
    throw new UsageError(
      `set XDG_CONFIG_HOME (or HOME) to a directory outside the project: the trust store ${store.location} would sit inside ${projectDir}, where the project could write its own trust`,
    );
  const read = readConfigForTrust(file);
  parseConfigText(read.text, file); // a file with mistakes is refused here, naming them, not trusted
  const { ignored } = tightenOnly(
    parseToml(read.text) as Record<string, unknown>,
    defaultConfig(),
    path.dirname(path.resolve(file)),
  );
  const entry: TrustEntry = {
    file: read.file,
    real: read.real,
    sha256: read.sha256,
    trusted_at: new Date().toISOString(),
  };
  // A damaged or foreign store is replaced: what it said could not be believed anyway.
  const others = store.problem ? [] : store.entries.filter((e) => e.file !== entry.file);
  writeTrustStore(store.location, [...others, entry]);
  const now = ignored.length
    ? `; these settings apply now as well:\n${ignored.map((s) => `  ${s.key}`).join('\n')}\n`
    : ' (it only tightens the policy, so nothing changes now)\n';
  out.write(
    sanitizeForTerminal(
      `trusted ${read.file} (sha256 ${read.sha256.slice(0, 16)}…)${now}` +
        'Editing the file makes it untrusted again; `toolgate trust --revoke` takes the trust back.\n',
    ),
  );
  return 0;
}

/** DIR/toolgate.toml, or the file itself when a file is named. */
function configFileIn(target: string): string {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(target).isDirectory();
  } catch {
    throw new UsageError(`"${target}" does not exist; give the project directory that holds toolgate.toml`);
  }
  const file = isDirectory ? path.join(target, 'toolgate.toml') : target;
  try {
    statSync(file);
  } catch {
    throw new UsageError(`there is no toolgate.toml in ${target}; give the project directory that holds it`);
  }
  return file;
}

/** The real path of a directory that may not exist yet: its nearest existing ancestor's, plus the rest. */
function realDir(dir: string): string {
  const rest: string[] = [];
  let at = path.resolve(dir);
  for (;;) {
    try {
      return path.join(realpathSync(at), ...rest.reverse());
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return path.resolve(dir);
      rest.push(path.basename(at));
      at = parent;
    }
  }
}

function inside(dir: string, parent: string): boolean {
  return dir === parent || dir.startsWith(`${parent}${path.sep}`);
}
