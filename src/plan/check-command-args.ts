import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CommandFacts, SimpleCommand } from '../core/command-facts.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { treeRead } from './tree-reads.js';

/** Git options that pick another repository, config or program: never part of an auto-allowed git. */
const GIT_REDIRECTING_OPTION =
  /^(?:-C|-c|--git-dir|--work-tree|--exec-path|--config-env|--namespace|--super-prefix|--list-cmds)(?:=|$)/;

export interface CommandArgChecks {
  sandbox: Sandbox;
  /** Where the command runs (already checked by the sandbox). */
  cwd: string;
  /** The repository-controlled git settings that run programs, at `cwd` (see git-config-dangers). */
  gitDangers: (cwd: string) => string[];
  /** Commands run under the OS sandbox, where denied files and vaults are unreadable to any program. */
  fenced: boolean;
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
    if (!checks.fenced && command.argv.every((a) => a !== undefined))
      problems.push(...treeProblems(command.argv as string[], checks));
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

/**
 * A command that goes through a directory tree, without the OS sandbox: nothing stops it at a
 * denied file or a vault inside that tree, so it asks. Reading contents asks for any directory
 * (denied patterns like `.env` may match anywhere in it); listing names asks where a vault is inside.
 */
function treeProblems(argv: string[], checks: CommandArgChecks): string[] {
  const tree = treeRead(argv, checks.cwd);
  if (!tree) return [];
  const problems: string[] = [];
  for (const operand of tree.operands) {
    const absolute = path.resolve(checks.cwd, operand);
    let directory: string;
    try {
      directory = realpathSync.native(absolute);
      if (!statSync(directory).isDirectory()) continue;
    } catch {
      continue; // nothing there to go through (a missing operand is the program's error)
    }
    const vaults = checks.sandbox.deniedDirsWithin(directory);
    const where = `"${operand}"`;
    if (vaults.length > 0)
      problems.push(
        `${argv[0]} goes through ${where}, which holds a vault (${checks.sandbox.display(vaults[0] as string)}); only vault_copyto reads a vault, and without [tools.run_command] sandbox = "os" nothing fences it from a command`,
      );
    else if (tree.reads === 'contents')
      problems.push(
        `${argv[0]} reads every file under ${where}, denied ones too (.env, keys): use the grep tool, which leaves them out, or [tools.run_command] sandbox = "os", which fences them`,
      );
  }
  return problems;
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
