import type { PolicyRule } from '../config/config-schema.js';
import type { CommandFacts, SimpleCommand } from '../core/command-facts.js';
import type { ResolvedPath } from '../sandbox/sandbox.js';
import { evaluateConditions } from './evaluate-conditions.js';
import type { PatternCache } from './pattern-cache.js';
import { isReadOnlyCommand } from './read-only-commands.js';

export interface ShellRules {
  allow: readonly string[];
  deny: readonly string[];
  ask: readonly string[];
  autoAllowReadOnly: boolean;
  onRisky: 'ask' | 'deny';
}

export type ShellVerdict =
  | { action: 'deny' | 'ask' | 'allow'; reason: string; rule: string }
  | { action: 'none' };

/** A prefix rule matches whole words: "git status" matches `git status -s`, never `git statusx`. */
export function prefixMatches(rule: string, argv: readonly (string | undefined)[]): boolean {
  const words = rule.trim().split(/\s+/);
  return words.length > 0 && words.every((w, i) => argv[i] !== undefined && argv[i] === w);
}

interface ConditionRule {
  rule: PolicyRule;
  index: number;
}

/**
 * Judges a parsed command line sub-command by sub-command (DESIGN §4): a deny on any sub-command
 * denies; a risky construct never auto-allows; the line is allowed without asking only when every
 * sub-command is covered by an allow prefix, an allow rule's conditions, or (if enabled) the
 * read-only list — the user's standing approval for exactly those sub-commands.
 */
export function judgeShell(
  facts: CommandFacts,
  rules: ShellRules,
  conditionRules: readonly ConditionRule[],
  args: Record<string, unknown>,
  paths: readonly ResolvedPath[],
  patterns?: PatternCache,
): ShellVerdict {
  const matchesCondition = (cmd: SimpleCommand, action: PolicyRule['action']) =>
    conditionRules.find(
      (r) =>
        r.rule.action === action &&
        evaluateConditions(r.rule.conditions, { ...args, command: cmd.text }, paths, patterns),
    );
  for (const cmd of facts.commands) {
    const prefix = rules.deny.find((r) => prefixMatches(r, cmd.argv));
    if (prefix)
      return {
        action: 'deny',
        reason: `\`${cmd.text}\` matches the deny rule "${prefix}"`,
        rule: 'tools.run_command.deny',
      };
    const conditioned = matchesCondition(cmd, 'deny');
    if (conditioned) {
      return {
        action: 'deny',
        reason: conditioned.rule.message ?? `\`${cmd.text}\` is denied by policy rule ${conditioned.index}`,
        rule: `tools.policy.rules[${conditioned.index}]`,
      };
    }
  }
  if (facts.risks.length > 0) {
    return {
      action: rules.onRisky,
      reason: `the command ${rules.onRisky === 'deny' ? 'is refused' : 'needs approval'}: ${facts.risks.join('; ')}`,
      rule: 'tools.run_command.on_risky',
    };
  }
  if (facts.commands.length === 0) return { action: 'none' };
  const uncovered: string[] = [];
  const problems: string[] = [];
  for (const cmd of facts.commands) {
    const ask = rules.ask.find((r) => prefixMatches(r, cmd.argv)) ?? matchesCondition(cmd, 'ask');
    if (ask) {
      const rule = typeof ask === 'string' ? 'tools.run_command.ask' : `tools.policy.rules[${ask.index}]`;
      return { action: 'ask', reason: `\`${cmd.text}\` always asks`, rule };
    }
    if (cmd.problems?.length) {
      // No rule allows what cannot be checked: a path outside the roots, a run-time value, a
      // repository's git config that runs programs.
      problems.push(`\`${cmd.text}\`: ${cmd.problems.join('; ')}`);
      continue;
    }
    const allowed =
      rules.allow.some((r) => prefixMatches(r, cmd.argv)) ||
      matchesCondition(cmd, 'allow') !== undefined ||
      (rules.autoAllowReadOnly && isReadOnlyCommand(cmd.argv));
    if (!allowed) uncovered.push(cmd.text);
  }
  if (problems.length > 0) {
    return {
      action: 'ask',
      reason: `its arguments need a person to look: ${problems.join(', ')}`,
      rule: 'tools.run_command (argument checks)',
    };
  }
  if (uncovered.length > 0) {
    return {
      action: 'ask',
      reason: `not covered by an allow rule: ${uncovered.map((t) => `\`${t}\``).join(', ')}`,
      rule: 'tools.run_command.allow',
    };
  }
  return {
    action: 'allow',
    reason: 'every sub-command is allowed by a rule (standing approval)',
    rule: 'tools.run_command.allow',
  };
}
