import type { CommandFacts, SimpleCommand } from '../core/command-facts.js';
import type { Sandbox } from '../sandbox/sandbox.js';

/** Git options that pick another repository, config or program: never part of an auto-allowed git. */
const GIT_REDIRECTING_OPTION =
  /^(?:-C|-c|--git-dir|--work-tree|--exec-path|--config-env|--namespace|--super-prefix|--list-cmds)(?:=|$)/;

export interface CommandArgChecks {
  sandbox: Sandbox;
  /** Where the command runs (already checked by the sandbox). */
  cwd: string;
  /** The repository-controlled git settings that run programs, at `cwd` (see git-config-dangers). */
  gitDangers: (cwd: string) => string[];
}

/** Programs whose arguments are only printed or compared, never opened: run-time values are fine. */
const NO_PATH_ARGUMENTS = new Set(['echo', 'printf', 'true', 'false', ':', 'test', '[']);

/**
 * The parts of an argument a program may take as a path: the word; the value of `--opt=value`;
 * for `-xVALUE` both the value after the option letter and anything from its first `/` (which
 * letters take values is the program's business, so both readings are checked).
 */
function pathParts(arg: string): string[] {
  if (arg === '-' || arg === '--') return [];
  if (arg.startsWith('--')) {
    const eq = arg.indexOf('=');
    return eq < 0 ? [] : [arg.slice(eq + 1)];
  }
  if (arg.startsWith('-')) {
    const slash = arg.indexOf('/');
    return slash < 0 && !arg.includes('..') ? [] : [arg.slice(2), ...(slash < 0 ? [] : [arg.slice(slash)])];
  }
  return [arg];
}

/**
 * The planner's preflight for command lines, like the sandbox's for paths: every argument (and
 * every file read through `<`) is judged as the path a program could take it for, and a `git`
 * command is judged with the repository's configuration. Each problem is recorded on its
 * sub-command; policy never allows one with a problem without asking (deny rules still apply).
 */
export function checkCommandArgs(facts: CommandFacts, checks: CommandArgChecks): void {
  let gitDangers: string[] | undefined;
  for (const command of facts.commands) {
    const problems: string[] = [];
    const printsOnly = NO_PATH_ARGUMENTS.has(command.argv[0] ?? '');
    const args = [...(printsOnly ? [] : command.argv.slice(1)), ...(command.inputs ?? [])];
    for (const arg of args) {
      if (arg === undefined) {
        problems.push('an argument known only at run time');
        continue;
      }
      for (const candidate of pathParts(arg)) {
        if (candidate === '') continue;
        const problem = checks.sandbox.commandPathProblem(candidate, checks.cwd);
        if (problem) problems.push(problem);
      }
    }
    if (command.argv[0] === 'git')
      problems.push(
        ...gitProblems(command, () => {
          gitDangers ??= checks.gitDangers(checks.cwd);
          return gitDangers;
        }),
      );
    if (problems.length > 0) command.problems = [...new Set(problems)];
  }
}

function gitProblems(command: SimpleCommand, dangers: () => string[]): string[] {
  const problems: string[] = [];
  for (const arg of command.argv.slice(1)) {
    if (arg === undefined) continue;
    if (!arg.startsWith('-')) break; // the subcommand: global options come before it
    if (GIT_REDIRECTING_OPTION.test(arg))
      problems.push(`git ${arg.split('=')[0]} changes which repository, config or program is used`);
  }
  for (const key of dangers()) problems.push(`this repository's git config runs a program (${key})`);
  return problems;
}
