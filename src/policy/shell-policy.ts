import type { PolicyRule } from '../config/config-schema.js';
import type { CommandFacts, SimpleCommand } from '../core/command-facts.js';
import type { ResolvedPath } from '../sandbox/sandbox.js';
import { evaluateConditions } from './evaluate-conditions.js';
import { gitCommandView } from './git-global-options.js';
import { gitOptionNeedingName } from './git-named-options.js';
import { namesOwnState, ownStateRefusal } from './own-state-refusal.js';
import type { PatternCache } from './pattern-cache.js';
import { checkProgramFlags, isReadOnlyCommand } from './read-only-commands.js';

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

/**
 * A deny or ask rule: it matches the command as written, and a git command also with its global
 * options taken out (`deny = ["git commit"]` matches `git -P commit`, `git -c a=b commit`, and
 * `git --unknown commit`, which git refuses anyway).
 */
function restrictionMatches(rule: string, argv: readonly (string | undefined)[]): boolean {
  if (prefixMatches(rule, argv)) return true;
  const git = gitCommandView(argv);
  return git !== undefined && prefixMatches(rule, git.argv);
}

/**
 * An allow prefix rule: the words it names are what the user allowed. Through git's global options
 * it matches only when they are all harmless (`-P`, `--no-pager` …); otherwise the rule itself must
 * name them. For a program with a flag table (program-flags.ts), every option after the rule's
 * words must be known to be safe: `allow = ["sort"]` does not allow `sort -o FILE`, but
 * `allow = ["sort -o"]` does. Programs without a table (npm, make …) are allowed by prefix alone.
 */
function allowRuleCovers(rule: string, argv: readonly (string | undefined)[], runsFile?: number): boolean {
  const named = prefixMatches(rule, argv) ? rule.trim().split(/\s+/).length : undefined;
  // A script file is what runs: the rule must name it (`sh build.sh`), not only the shell.
  if (runsFile !== undefined) return named !== undefined && named > runsFile;
  const git = gitCommandView(argv);
  if (git) {
    // git's subcommand tables are the read-only forms, not flags a rule must name: an allowed
    // `git diff` prints contents (the planner refuses history reads of denied paths). Options that
    // write a file, read paths no word names or print all of history must be named, though.
    if (named !== undefined && git.riskyEnd <= named) {
      const from = Math.max(1, git.riskyEnd); // where the subcommand starts
      return gitOptionNeedingName(['git', ...argv.slice(from)], named - from + 1) < 0;
    }
    if (!git.harmless || !prefixMatches(rule, git.argv)) return false;
    return gitOptionNeedingName(git.argv, rule.trim().split(/\s+/).length) < 0;
  }
  if (named === undefined) return false;
  const flags = checkProgramFlags(argv);
  return flags === undefined || flags.issues.every((issue) => issue.index < named);
}

/** The words a conditioned allow rule names (its string values, split into words). */
function wordsOfRule(rule: PolicyRule): Set<string> {
  const words = new Set<string>();
  for (const condition of rule.conditions) {
    const values = Array.isArray(condition.value) ? condition.value : [condition.value];
    for (const value of values) for (const word of value.split(/\s+/)) words.add(word);
  }
  return words;
}

/** For a conditioned allow rule: every option not known to be safe must be a word of the rule. */
function conditionCoversFlags(rule: PolicyRule, argv: readonly (string | undefined)[]): boolean {
  if (argv[0] === 'git') return true;
  const flags = checkProgramFlags(argv);
  if (!flags || flags.issues.length === 0) return true;
  const words = wordsOfRule(rule);
  return flags.issues.every((issue) => {
    const word = argv[issue.index];
    return word !== undefined && words.has(word);
  });
}

/**
 * An uncovered sub-command, with what its flag table found (an allow rule that names the flag,
 * e.g. allow = ["sort -o"], allows exactly that).
 */
function uncoveredText(cmd: SimpleCommand): string {
  const issues = cmd.argv[0] === 'git' ? [] : (checkProgramFlags(cmd.argv)?.issues ?? []);
  const what = [...new Set(issues.map((issue) => issue.what))];
  return what.length === 0
    ? `\`${cmd.text}\``
    : `\`${cmd.text}\` (${what.join('; ')}: approve it, or allow exactly that with a rule naming it)`;
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
  // The whole line, so a redirection or a here-document naming toolgate's state is refused too
  // (a sub-command's own refusal, below, says more precisely where).
  if (
    typeof args.command === 'string' &&
    namesOwnState(args.command) &&
    !facts.commands.some((cmd) => cmd.refusals?.length)
  )
    return {
      action: 'deny',
      reason: ownStateRefusal('the command line'),
      rule: "sandbox (toolgate's own state)",
    };
  // Conditions see the command's text; deny and ask conditions also see a git command as its
  // subcommand runs, without global options (`git -P commit` as `git commit`).
  const texts = (cmd: SimpleCommand, action: PolicyRule['action']) => {
    const git = action === 'allow' ? undefined : gitCommandView(cmd.argv);
    const plain =
      git && git.argv.length < cmd.argv.length && git.argv.every((w) => w !== undefined)
        ? git.argv.join(' ')
        : undefined;
    return plain === undefined ? [cmd.text] : [cmd.text, plain];
  };
  const matchesCondition = (cmd: SimpleCommand, action: PolicyRule['action']) =>
    conditionRules.find(
      (r) =>
        r.rule.action === action &&
        texts(cmd, action).some((text) =>
          evaluateConditions(r.rule.conditions, { ...args, command: text }, paths, patterns),
        ),
    );
  for (const cmd of facts.commands) {
    if (cmd.refusals?.length)
      return {
        action: 'deny',
        reason: `\`${cmd.text}\` is refused whatever the rules say: ${cmd.refusals.join('; ')}`,
        rule: 'sandbox (denied paths and vaults)',
      };
    const prefix = rules.deny.find((r) => restrictionMatches(r, cmd.argv));
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
    const ask = rules.ask.find((r) => restrictionMatches(r, cmd.argv)) ?? matchesCondition(cmd, 'ask');
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
      rules.allow.some((r) => allowRuleCovers(r, cmd.argv, cmd.runsFile)) ||
      conditionRules.some(
        (r) =>
          r.rule.action === 'allow' &&
          evaluateConditions(r.rule.conditions, { ...args, command: cmd.text }, paths, patterns) &&
          conditionCoversFlags(r.rule, cmd.argv) &&
          (cmd.runsFile === undefined || wordsOfRule(r.rule).has(cmd.argv[cmd.runsFile] ?? '')),
      ) ||
      (rules.autoAllowReadOnly && isReadOnlyCommand(cmd.argv));
    if (!allowed) uncovered.push(uncoveredText(cmd));
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
      reason: `not covered by an allow rule: ${uncovered.join(', ')}`,
      rule: 'tools.run_command.allow',
    };
  }
  return {
    action: 'allow',
    reason: 'every sub-command is allowed by a rule (standing approval)',
    rule: 'tools.run_command.allow',
  };
}
