import path from 'node:path';
import type { ConfigTrust } from '../config/project-config.js';

/**
 * What a person is told when a project's own `toolgate.toml` was not used in full: the command that
 * trusts it first, then why, then what was ignored. Undefined when nothing was ignored.
 */
export function untrustedNotice(
  configFile: string | undefined,
  trust: ConfigTrust,
  cwd: string,
): string | undefined {
  if (!configFile || trust.ignored.length === 0) return undefined;
  if (trust.state !== 'untrusted' && trust.state !== 'changed') return undefined;
  const shown = shortPath(configFile, cwd);
  const why =
    trust.state === 'changed'
      ? `${shown} changed since it was trusted`
      : `${shown} was found in the project (not named with --config) and is not trusted`;
  const ignored = trust.ignored.map((s) => `    ${s.key}: ${s.why}`).join('\n');
  return (
    `toolgate: to use every setting of ${shown}, review it, then run: ${trustCommand(configFile, cwd)}\n` +
    `  ${why}, so only its settings that make the policy stricter apply` +
    `${trust.storeProblem ? ` (and the trust store was not read: ${trust.storeProblem})` : ''}.\n` +
    `  Ignored until then:\n${ignored}\n`
  );
}

/** `toolgate trust`, with the directory when it is not the working directory. */
export function trustCommand(configFile: string, cwd: string): string {
  const dir = path.dirname(configFile);
  if (path.basename(configFile) !== 'toolgate.toml')
    return `toolgate trust ${shellWord(shortPath(configFile, cwd))}`;
  if (path.resolve(cwd) === path.resolve(dir)) return 'toolgate trust';
  return `toolgate trust ${shellWord(shortPath(dir, cwd))}`;
}

/** Relative to the working directory when inside it, else as it is. */
function shortPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  if (relative === '') return '.';
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** Each file's notice once per process, however many times the setup is resolved. */
const told = new Set<string>();

export function tellUntrustedOnce(
  configFile: string | undefined,
  trust: ConfigTrust,
  cwd: string,
  write: (text: string) => void,
): void {
  const text = untrustedNotice(configFile, trust, cwd);
  if (!text || told.has(text)) return;
  told.add(text);
  write(text);
}
