import { describe, expect, it } from 'vitest';
import type { ConfirmationRequest } from '../core/confirmation.js';
import { hintForAsk } from './allow-hint.js';

const request = (toolName: string, access: 'write' | 'delete'): ConfirmationRequest => ({
  callId: 'c',
  toolName,
  summary: 's',
  risk: 'medium',
  locations: [{ path: 'old.txt', access }],
  reason: 'r',
  rule: 'tools.approval.prompt_side_effects',
});

describe('issue #31 §3: the hint after a denied ask names a fix that works', () => {
  it('a deletion: no config line allows it, it can only be approved when asked', () => {
    const hint = hintForAsk(request('delete_file', 'delete'), 'toolgate.toml');
    expect(hint).toMatch(/^none: a deletion can only be approved when asked/);
    expect(hint).not.toContain('allowlist');
  });

  it('a write: the allowlist line', () => {
    expect(hintForAsk(request('write_file', 'write'), 'toolgate.toml')).toBe(
      'add "write_file" to [tools.approval] allowlist in toolgate.toml',
    );
  });

  const command = (rule: string, reason: string, detail: string): ConfirmationRequest => ({
    ...request('run_command', 'write'),
    locations: [],
    rule,
    reason,
    detail,
  });

  it('a command no rule covers: the first uncovered program, as a valid TOML string', () => {
    expect(
      hintForAsk(
        command('tools.run_command.allow', 'not covered by an allow rule: `rm -rf x`', 'cd a && rm -rf x'),
        'toolgate.toml',
      ),
    ).toBe(
      'add the command to [tools.run_command] allow in toolgate.toml (e.g. allow = ["rm"]), or approve it when asked',
    );
    const odd = hintForAsk(
      command('tools.run_command.allow', 'not covered by an allow rule: `a"b\\c x`', 'a"b\\c x'),
      'toolgate.toml',
    );
    expect(odd).toContain('allow = ["a\\"b\\\\c"]');
  });

  it('never proposes allowing a shell, an interpreter or sudo: that would allow any command (hostile review F5)', () => {
    for (const program of ['sh', 'bash', 'python3', 'sudo', 'env', 'xargs']) {
      const hint = hintForAsk(
        command(
          'tools.run_command.allow',
          `not covered by an allow rule: \`${program} -c x\``,
          `${program} -c x`,
        ),
        'toolgate.toml',
      );
      expect(hint).toMatch(
        new RegExp(`^none: a command run through ${program} can only be approved when asked`),
      );
      expect(hint).not.toContain('allow = [');
    }
  });

  it('a risky command or one whose arguments need a look: only when asked, never a rule that cannot help (hostile review F5)', () => {
    for (const rule of ['tools.run_command.on_risky', 'tools.run_command (argument checks)']) {
      const hint = hintForAsk(
        command(rule, 'the command needs approval: writes a file', 'sh -c x'),
        'toolgate.toml',
      );
      expect(hint).toMatch(/^none: this command can only be approved when asked/);
    }
  });
});
