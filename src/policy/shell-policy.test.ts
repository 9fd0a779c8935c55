import { describe, expect, it } from 'vitest';
import type { CommandFacts } from '../core/command-facts.js';
import { gitCommandView } from './git-global-options.js';
import { judgeShell, type ShellRules } from './shell-policy.js';

const rules = (over: Partial<ShellRules> = {}): ShellRules => ({
  allow: [],
  deny: [],
  ask: [],
  autoAllowReadOnly: false,
  onRisky: 'ask',
  ...over,
});

const facts = (...commands: CommandFacts['commands']): CommandFacts => ({ commands, risks: [] });
const cmd = (text: string, extra: Partial<CommandFacts['commands'][number]> = {}) => ({
  argv: text.split(' '),
  text,
  ...extra,
});

describe('judgeShell: what the planner refuses (issue #29 §5, git history reads)', () => {
  it('a sub-command with a refusal denies the whole line, whatever allows it, naming why', () => {
    const verdict = judgeShell(
      facts(
        cmd('ls'),
        cmd('git log -p -- secret.pem', {
          refusals: ['git log -p reads "secret.pem" from history: it is denied'],
        }),
      ),
      rules({ allow: ['ls', 'git'], autoAllowReadOnly: true }),
      [],
      {},
      [],
    );
    expect(verdict).toMatchObject({ action: 'deny', rule: 'sandbox (denied paths and vaults)' });
    expect(verdict.action !== 'none' && verdict.reason).toContain('reads "secret.pem" from history');
  });

  it('an empty refusal list refuses nothing', () => {
    expect(judgeShell(facts(cmd('ls', { refusals: [] })), rules({ allow: ['ls'] }), [], {}, []).action).toBe(
      'allow',
    );
  });
});

describe("git's global options (issue #29 §5)", () => {
  it.each([
    ['git -P commit -m x', ['git', 'commit', '-m', 'x'], true, 0],
    ['git -c a=b commit', ['git', 'commit'], false, 3],
    ['git -C dir -P commit', ['git', 'commit'], false, 3],
    ['git --git-dir x --work-tree=y status', ['git', 'status'], false, 4],
    ['git --frob status', ['git', 'status'], false, 2],
    ['git status', ['git', 'status'], true, 0],
  ])('%s → %j (harmless %s, risky up to %d)', (line, argv, harmless, riskyEnd) => {
    expect(gitCommandView(line.split(' '))).toEqual({ argv, harmless, riskyEnd });
  });

  it('a run-time word before the subcommand is not harmless', () => {
    expect(gitCommandView(['git', undefined, 'commit'])).toEqual({
      argv: ['git', 'commit'],
      harmless: false,
      riskyEnd: 2,
    });
  });
});
