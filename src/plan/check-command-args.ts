import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CommandFacts, SimpleCommand } from '../core/command-facts.js';
import { namesOwnState, ownStateRefusal } from '../policy/own-state-refusal.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { gitSafetyEnv, withGitSafety } from '../tools/git/git-safety-env.js';
import { scrubEnv } from '../tools/shell/env-scrub.js';
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
    const refusals: string[] = [];
    for (const arg of args) {
      if (arg === undefined) {
        problems.push('an argument known only at run time');
        continue;
      }
      if (namesOwnState(arg)) refusals.push(ownStateRefusal(`"${arg}"`));
      for (const candidate of pathParts(arg)) {
        if (candidate === '') continue;
        if (checks.sandbox.ownStatePath(candidate, checks.cwd))
          refusals.push(ownStateRefusal(`"${candidate}"`));
        const problem = checks.sandbox.commandPathProblem(candidate, checks.cwd);
        if (problem) problems.push(problem);
      }
    }
    if (!checks.fenced && command.argv.every((a) => a !== undefined))
      problems.push(...treeProblems(command.argv as string[], checks));
    if (command.argv[0] === 'git') {
      problems.push(
        ...gitProblems(command, () => {
          gitDangers ??= checks.gitDangers(checks.cwd);
          return gitDangers;
        }),
      );
      gitHistoryReads(command, checks, problems, refusals);
    }
    if (problems.length > 0) command.problems = [...new Set(problems)];
    if (refusals.length > 0) command.refusals = [...new Set(refusals)];
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

/** Global options of git that take the next word as their value (when not written `--opt=value`). */
const GIT_OPTION_WITH_VALUE = /^(?:-C|-c|--git-dir|--work-tree|--namespace|--config-env|--super-prefix)$/;

/** Where git's sub-command is in `argv` (after its global options), or -1 when none is known. */
function gitSubcommand(argv: readonly (string | undefined)[]): number {
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === undefined) return -1;
    if (!arg.startsWith('-')) return i;
    if (GIT_OPTION_WITH_VALUE.test(arg)) i++;
  }
  return -1;
}

/** Options with which a git sub-command runs a program or plants what the next git runs. */
const PROGRAM_OPTION = /^--(?:upload-pack|receive-pack|exec|extcmd|template)(?:=|$)/;
const PROGRAM_OPTION_OF: Readonly<Record<string, RegExp>> = {
  clone: /^(?:-u|-c|--config)(?:=|$)|^-u./,
  rebase: /^(?:-x|--exec)(?:=|$)|^-x./,
};
/** Sub-commands that run a command line given to them. */
const RUNS_GIVEN_COMMAND: Readonly<Record<string, string | undefined>> = {
  bisect: 'run',
  submodule: 'foreach',
};

/** `git config` forms that only read. */
const CONFIG_READ_OPTION =
  /^(?:--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|-l|--list)$/;
const CONFIG_WRITE_OPTION =
  /^(?:--add|--replace-all|--unset|--unset-all|--rename-section|--remove-section|-e|--edit)$/;
const CONFIG_OPTION_WITH_VALUE = /^(?:-f|--file|--blob|--type|--default|--comment|--value)$/;

/** Whether `git config ARGS` writes a configuration file (which decides what git runs). */
function writesConfig(args: readonly (string | undefined)[]): boolean {
  const positional: (string | undefined)[] = [];
  let reads = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) return true; // known only at run time: assume the worst
    if (CONFIG_WRITE_OPTION.test(arg)) return true;
    if (CONFIG_READ_OPTION.test(arg)) reads = true;
    else if (CONFIG_OPTION_WITH_VALUE.test(arg)) i++;
    else if (!arg.startsWith('-')) positional.push(arg);
  }
  const verb = positional[0];
  if (verb === 'get' || verb === 'list') return false;
  if (verb && ['set', 'unset', 'edit', 'rename-section', 'remove-section'].includes(verb)) return true;
  return !reads && positional.length >= 2;
}

function gitProblems(command: SimpleCommand, dangers: () => string[]): string[] {
  const problems: string[] = [];
  const sub = gitSubcommand(command.argv);
  for (const arg of command.argv.slice(1, sub < 0 ? undefined : sub)) {
    if (arg === undefined) continue;
    if (GIT_REDIRECTING_OPTION.test(arg))
      problems.push(`git ${arg.split('=')[0]} changes which repository, config or program is used`);
  }
  const name = sub < 0 ? undefined : command.argv[sub];
  const args = sub < 0 ? [] : command.argv.slice(sub + 1);
  if (name !== undefined) {
    const own = PROGRAM_OPTION_OF[name];
    for (const arg of args) {
      if (arg !== undefined && (PROGRAM_OPTION.test(arg) || own?.test(arg)))
        problems.push(`git ${name} ${arg.split('=')[0]} runs a program or sets up what the next git runs`);
    }
    if (RUNS_GIVEN_COMMAND[name] !== undefined && args.includes(RUNS_GIVEN_COMMAND[name]))
      problems.push(`git ${name} ${RUNS_GIVEN_COMMAND[name]} runs a command line`);
    if (name === 'filter-branch') problems.push('git filter-branch runs shell commands');
    if (name === 'config' && writesConfig(args))
      problems.push(
        "git config writes git's configuration, which decides what programs git runs (hooks, filters, pagers): a change to it is approved by a person",
      );
  }
  for (const key of dangers()) problems.push(`this repository's git config runs a program (${key})`);
  return problems;
}

/** Sub-commands that print files' contents (or names) from the repository's history. */
const HISTORY_READERS = new Set([
  'show',
  'log',
  'whatchanged',
  'diff',
  'diff-tree',
  'diff-index',
  'diff-files',
  'cat-file',
  'grep',
  'blame',
  'annotate',
  'archive',
  'format-patch',
  'ls-tree',
  'range-diff',
  'stash',
  'difftool',
  'restore',
  'checkout',
  'switch',
]);

/** Options of the history readers whose value is the next word (a pattern, a count, a range). */
const VALUE_OPTION =
  /^(?:-[SGefnOL]|--grep|--author|--committer|--format|--pretty|--regexp|--max-count|--skip|--since|--until|--after|--before)$/;

/** Sub-commands whose object arguments may be a file's content (a blob), named by its id alone. */
const PRINTS_OBJECTS = new Set(['show', 'cat-file', 'diff']);

/** Pathspec magic (`:(icase,glob)x`, `:!x`, `:/x`, `:^x`) in front of a path, taken off. */
function pathspecPath(spec: string): { path: string; top: boolean; icase: boolean } {
  const long = /^:\(([^)]*)\)(.*)$/s.exec(spec);
  if (long) {
    const magic = (long[1] as string).split(',');
    return { path: long[2] as string, top: magic.includes('top'), icase: magic.includes('icase') };
  }
  const short = /^:([/!^]+)(.*)$/s.exec(spec);
  if (short) return { path: short[2] as string, top: (short[1] as string).includes('/'), icase: false };
  return { path: spec, top: false, icase: false };
}

/** The working tree's top above `cwd` (the nearest directory holding a `.git`), or undefined. */
function workTreeTop(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * History reads are reads of the paths they name (issue #29 §5): a `REV:path` word, a `-L…:path`
 * range or a pathspec that names a denied path or a vault is refused, whatever a person would
 * answer (git's objects sit in .git, where neither the path sandbox nor the OS sandbox can stop
 * them); one naming a path outside the roots asks. An object named by id alone that is a file's
 * content (a blob: `git show -s <blob>`, `git cat-file -p <blob>`) asks, since no path of it can
 * be judged; so does `cat-file --batch`, whose objects come from stdin.
 */
function gitHistoryReads(
  command: SimpleCommand,
  checks: CommandArgChecks,
  problems: string[],
  refusals: string[],
): void {
  const sub = gitSubcommand(command.argv);
  const name = sub < 0 ? undefined : command.argv[sub];
  if (name === undefined || !HISTORY_READERS.has(name)) return;
  const top = workTreeTop(checks.cwd);
  const judge = (p: string, fromTop: boolean, word: string) => {
    if (p === '' || p === '.') return;
    const { path: inner, top: atTop, icase } = pathspecPath(p);
    const bases = new Set([atTop || fromTop ? (top ?? checks.cwd) : checks.cwd, top ?? checks.cwd]);
    for (const candidate of icase ? [inner, inner.toLowerCase()] : [inner]) {
      for (const base of bases) {
        const { denied, outside } = checks.sandbox.historyPathProblem(candidate, base);
        if (denied)
          refusals.push(
            `git ${name} "${word}" reads a denied path from the repository's history (${denied}); history holds what the sandbox refuses to every tool, so this is refused`,
          );
        else if (outside) problems.push(`git ${name} "${word}" reads from history ${outside}`);
      }
    }
  };
  const objects: string[] = [];
  let afterDashes = false;
  // grep's first word is its pattern, unless -e/-f give it.
  let grepPattern =
    name === 'grep' && !command.argv.some((a) => a !== undefined && /^(?:-[ef]|--regexp|--file)/.test(a));
  let pendingOption: string | undefined;
  for (const arg of command.argv.slice(sub + 1)) {
    if (arg === undefined) continue; // already a problem of its own
    if (pendingOption !== undefined) {
      if (pendingOption === '-L') judge(arg.slice(arg.lastIndexOf(':') + 1), true, arg);
      pendingOption = undefined;
      continue;
    }
    if (!afterDashes && VALUE_OPTION.test(arg)) {
      pendingOption = arg;
      continue;
    }
    if (afterDashes) {
      judge(arg, false, arg);
      continue;
    }
    if (arg === '--') {
      afterDashes = true;
      continue;
    }
    if (name === 'cat-file' && /^--batch/.test(arg))
      problems.push(
        'git cat-file --batch prints objects named on stdin, which cannot be judged before it runs',
      );
    const range = /^-L(.*)$/.exec(arg);
    if (range) {
      const last = (range[1] as string).lastIndexOf(':');
      if (last >= 0) judge((range[1] as string).slice(last + 1), true, arg);
      continue;
    }
    const value = arg.startsWith('--') && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg;
    if (arg.startsWith('-') && value === arg) continue;
    // REV:path (and :path, :N:path, the index): the path is the tree's, from the top (./ from here).
    const colon = /^([^:]*):(?:[0-3]:)?(.*)$/s.exec(value);
    if (colon && !value.startsWith(':(') && !/^:[/!^]/.test(value)) {
      const inner = colon[2] as string;
      judge(inner, !/^\.\.?\//.test(inner), arg);
      continue;
    }
    if (value !== arg) continue;
    if (grepPattern) {
      grepPattern = false;
      continue;
    }
    // A plain word: a revision, or a path git takes as a pathspec when it exists.
    judge(arg, false, arg);
    if (PRINTS_OBJECTS.has(name) && !/^(?:HEAD|@)(?:[~^]\d*)*$/.test(arg)) objects.push(arg);
  }
  if (objects.length > 0 && blobs(objects, checks.cwd).length > 0)
    problems.push(
      `git ${name} names a file's content by its object id, which says nothing about which file it is (a denied one, a vault): name it as REV:path instead`,
    );
}

/** Which of `names` are file contents (blobs) in the repository at `cwd`; all of them when git cannot say. */
function blobs(names: readonly string[], cwd: string): string[] {
  // Without toolgate's credentials: a command running meanwhile could read this git's /proc environ.
  const env = { ...scrubEnv(process.env), GIT_OPTIONAL_LOCKS: '0' };
  const safety = gitSafetyEnv(cwd, env);
  if (!safety.gitVersion) return [];
  const run = spawnSync('git', ['cat-file', '--batch-check=%(objecttype)'], {
    cwd,
    env: withGitSafety(env, safety),
    input: `${names.map((n) => n.replace(/\n/g, ' ')).join('\n')}\n`,
    encoding: 'utf8',
    timeout: 5000,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  if (run.error || run.status !== 0) return [...names];
  const types = (run.stdout ?? '').split('\n');
  return names.filter((_, i) => types[i] === 'blob' || types[i] === undefined);
}
