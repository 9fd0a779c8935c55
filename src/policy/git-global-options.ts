/**
 * git's global options, the words between `git` and its subcommand (`git -P commit`,
 * `git -c a=b commit`), so that rules match the subcommand that runs (issue #29). git compares
 * them whole (no abbreviations); `-C` and `-c` take the next word, the long ones `=value` or the
 * next word. Only the harmless ones let an allow rule or the read-only list match through them.
 * Any other word starting with `-` (`-p`, `--bare`, `--exec-path=…`, one git does not know) is taken
 * as one word: deny and ask rules still see the subcommand after it, allow rules do not.
 */

/** Options taking no value that change nothing git runs or reads from where the command says. */
const HARMLESS = new Set([
  '-P',
  '--no-pager',
  '--no-replace-objects',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-optional-locks',
  '--no-lazy-fetch',
  '--no-advice',
]);

/** Known, taking the next word (never attached). */
const NEXT_WORD = new Set(['-C', '-c']);

/** Known, taking `=value` or the next word. */
const LONG_VALUE = new Set([
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--config-env',
  '--attr-source',
]);

export interface GitCommandView {
  /** argv with the global options taken out: `git`, the subcommand, its arguments. */
  argv: readonly (string | undefined)[];
  /** Every global option is known and harmless (none at all counts). */
  harmless: boolean;
  /** Index in the original argv just past the last global option that is not harmless (0: none). */
  riskyEnd: number;
}

/** The command as git reads it, or undefined when it is not git. */
export function gitCommandView(argv: readonly (string | undefined)[]): GitCommandView | undefined {
  if (argv[0] !== 'git') return undefined;
  let riskyEnd = 0;
  let i = 1;
  while (i < argv.length) {
    const word = argv[i];
    // A run-time word here may be any option: unknown, and so not harmless.
    if (word !== undefined && !word.startsWith('-')) break;
    const eq = word?.indexOf('=') ?? -1;
    const name = word === undefined || eq < 0 ? word : word.slice(0, eq);
    let width = 1;
    if (name !== undefined && NEXT_WORD.has(name) && eq < 0) width = 2;
    else if (name !== undefined && LONG_VALUE.has(name)) width = eq < 0 ? 2 : 1;
    if (!(word !== undefined && HARMLESS.has(word))) riskyEnd = Math.min(argv.length, i + width);
    i += width;
  }
  return { argv: ['git', ...argv.slice(i)], harmless: riskyEnd === 0, riskyEnd };
}
