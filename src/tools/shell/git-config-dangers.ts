import { spawnSync } from 'node:child_process';

/**
 * Configuration keys with which git runs a program (or reads more configuration, or reaches
 * outside the repository). In a repository's own config (`local`/`worktree` scope, which a hostile
 * repository or model controls) any of them makes a git command ask. The user's global and system
 * config are theirs and trusted.
 */
const EXECUTING_KEY =
  /^(?:core\.(?:fsmonitor|hookspath|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand|worktree)|sequence\.editor|diff\.external|diff\..+\.(?:textconv|command)|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)|pager\..+|credential\.(?:.+\.)?helper|gpg\.(?:.+\.)?program|uploadpack\.packobjectshook|remote\..+\.(?:uploadpack|receivepack)|include\.path|includeif\..+\.path)$/;

/** `core.fsmonitor = true/false` selects the built-in daemon or none: not a program. */
const BOOLEAN = /^(?:true|false|yes|no|on|off|1|0)?$/i;

/**
 * The repository-controlled git settings at `cwd` that would run a program, as `key` strings
 * (empty when none, or when `cwd` is not in a repository). Listing config runs nothing. A failure
 * to list is itself reported, so it asks rather than allows.
 */
export function gitConfigDangers(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const listed = spawnSync('git', ['config', '--list', '--show-scope', '-z'], {
    cwd,
    env: { ...env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
    encoding: 'utf8',
    timeout: 5000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (listed.error) return [`git's config could not be read (${listed.error.message})`];
  // Outside a repository git lists only global/system config: nothing of the repository's to judge.
  const fields = (listed.stdout ?? '').split('\0');
  const dangers = new Set<string>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i];
    const entry = fields[i + 1] ?? '';
    if (scope !== 'local' && scope !== 'worktree' && scope !== 'command') continue;
    const newline = entry.indexOf('\n');
    const key = (newline < 0 ? entry : entry.slice(0, newline)).toLowerCase();
    const value = newline < 0 ? '' : entry.slice(newline + 1);
    if (!EXECUTING_KEY.test(key)) continue;
    if (key === 'core.fsmonitor' && BOOLEAN.test(value)) continue;
    dangers.add(key);
  }
  return [...dangers];
}
