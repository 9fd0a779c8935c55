import { spawnSync } from 'node:child_process';

/**
 * Configuration keys with which git runs a program (or reads more configuration, or reaches
 * outside the repository). In a repository's own config (`local`/`worktree` scope, which a hostile
 * repository or model controls) any of them makes a git command ask. The user's global and system
 * config are theirs and trusted.
 */
const EXECUTING_KEY =
  /^(?:core\.(?:fsmonitor|hookspath|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand|worktree)|sequence\.editor|diff\.external|diff\..+\.(?:textconv|command)|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)|pager\..+|credential\.(?:.+\.)?helper|gpg\.(?:.+\.)?program|uploadpack\.packobjectshook|remote\..+\.(?:uploadpack|receivepack)|include\.path|includeif\..+\.path|trailer\..+\.(?:cmd|command)|(?:diff|merge)tool\..+\.(?:cmd|path)|submodule\..+\.update)$/;

/** `core.fsmonitor = true/false` selects the built-in daemon or none: not a program. */
const BOOLEAN = /^(?:true|false|yes|no|on|off|1|0)?$/i;

export interface RepoConfigEntry {
  key: string;
  value: string;
}

/**
 * The configuration a repository controls at `cwd` (its `local` and `worktree` scopes, includes
 * resolved; other `scopes` on request), or undefined when git cannot list it. Listing config runs nothing. Outside a
 * repository git lists only global and system config: the result is then empty.
 */
export function repoConfig(
  cwd: string,
  env: NodeJS.ProcessEnv,
  scopes: readonly string[] = ['local', 'worktree', 'command'],
): RepoConfigEntry[] | undefined {
  const listed = spawnSync('git', ['config', '--list', '--show-scope', '-z'], {
    cwd,
    env: { ...env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
    encoding: 'utf8',
    timeout: 5000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (listed.error) return undefined;
  const fields = (listed.stdout ?? '').split('\0');
  const entries: RepoConfigEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i];
    if (!scopes.includes(scope ?? '')) continue;
    const entry = fields[i + 1] ?? '';
    const newline = entry.indexOf('\n');
    entries.push({
      key: (newline < 0 ? entry : entry.slice(0, newline)).toLowerCase(),
      value: newline < 0 ? '' : entry.slice(newline + 1),
    });
  }
  return entries;
}

/** The keys among `entries` with which git would run a program. */
export function executingKeys(entries: readonly RepoConfigEntry[]): string[] {
  const dangers = new Set<string>();
  for (const { key, value } of entries) {
    if (!EXECUTING_KEY.test(key)) continue;
    if (key === 'core.fsmonitor' && BOOLEAN.test(value)) continue;
    if (key.startsWith('submodule.') && !value.trim().startsWith('!')) continue;
    dangers.add(key);
  }
  for (const { key, value } of entries) {
    // A `!` alias runs a shell command when `git <alias>` is typed; one starting with git's own
    // options (`-c core.fsmonitor=…`) turns settings back on.
    if (key.startsWith('alias.') && /^\s*[!-]/.test(value)) dangers.add(key);
  }
  return [...dangers];
}

/**
 * The repository-controlled git settings at `cwd` that would run a program, as `key` strings
 * (empty when none, or when `cwd` is not in a repository). A failure to list is itself reported,
 * so it asks rather than allows.
 */
export function gitConfigDangers(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const entries = repoConfig(cwd, env);
  return entries ? executingKeys(entries) : ["git's config could not be read"];
}
