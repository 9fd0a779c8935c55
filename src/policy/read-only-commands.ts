import { checkFindArgs } from './find-expression.js';
import { gitCommandView } from './git-global-options.js';
import { type ArgIssue, parseOptions } from './option-parser.js';
import { ANY_ARGUMENTS, GIT_DIFF_NAMES_ONLY, GIT_SUBCOMMAND_FLAGS, PROGRAM_FLAGS } from './program-flags.js';

/**
 * Commands that only look (DESIGN §4: auto-allowed when `auto_allow_read_only = true`): the
 * programs of program-flags.ts, each with the options known to be safe for it, read as the program
 * reads its argv (option-parser.ts). Paths outside the roots, run-time values and a repository's
 * git config that runs programs are checked for every command by the planner
 * (check-command-args.ts); what is checked here is what only the program's own options tell.
 */
export interface FlagCheck {
  /** What keeps it from running without asking; empty when every word is known to be safe. */
  issues: ArgIssue[];
  /** Values of options that name a file the program reads: to be judged as paths. */
  reads: string[];
}

/**
 * The flag check of a (parsed, unwrapped) command, or undefined for a program without a table
 * (then only rules can allow it). For git, the table of its subcommand, after the global options.
 */
export function checkProgramFlags(argv: readonly (string | undefined)[]): FlagCheck | undefined {
  const program = argv[0];
  if (program === undefined) return undefined;
  if (ANY_ARGUMENTS.has(program)) return { issues: [], reads: [] };
  if (program === 'find') return { issues: checkFindArgs(argv).issues, reads: [] };
  if (program === 'git') return checkGit(argv);
  const table = PROGRAM_FLAGS.get(program);
  if (!table) return undefined;
  const { issues, reads } = parseOptions(argv, 1, table);
  return { issues, reads };
}

function checkGit(argv: readonly (string | undefined)[]): FlagCheck | undefined {
  const view = gitCommandView(argv);
  const subcommand = view?.argv[1];
  const table = subcommand === undefined ? undefined : GIT_SUBCOMMAND_FLAGS.get(subcommand);
  if (!view || !table) return undefined;
  // Indexes in the view are shifted back to the original argv (issues point at words).
  const shift = argv.length - view.argv.length;
  const parsed = parseOptions(view.argv, 2, table);
  const issues = parsed.issues.map((issue) => ({ ...issue, index: issue.index + shift }));
  if (!view.harmless) issues.push({ index: view.riskyEnd - 1, what: 'a git option before the subcommand' });
  if (subcommand === 'diff' && !view.argv.some((a) => a !== undefined && GIT_DIFF_NAMES_ONLY.includes(a)))
    issues.push({
      index: 1 + shift,
      what: `git diff prints file contents without ${GIT_DIFF_NAMES_ONLY.join('/')}`,
    });
  return { issues, reads: parsed.reads };
}

/** Whether a command is on the read-only list with only safe arguments. */
export function isReadOnlyCommand(argv: readonly (string | undefined)[]): boolean {
  const check = checkProgramFlags(argv);
  return check !== undefined && check.issues.length === 0;
}

/**
 * Values of a command's options that name files it reads (`grep -fF`, `sort --random-source F`,
 * `du -X F`): the planner judges them as paths, however they are attached to their option.
 */
export function optionFileValues(argv: readonly (string | undefined)[]): string[] {
  return checkProgramFlags(argv)?.reads ?? [];
}
