/**
 * Commands that only look (DESIGN §4: auto-allowed when `auto_allow_read_only = true`), as data:
 * a whole-word prefix and, per program, the arguments that would make it write a file or run a
 * program. Paths outside the roots, run-time values and a repository's git config that runs
 * programs are checked for every command by the planner (check-command-args.ts); the rules here
 * are what only the program's own options can tell.
 */
interface ReadOnlyEntry {
  prefix: readonly string[];
  /** An argument that writes or runs something (tested on each argument after the prefix). */
  unsafeArg?: RegExp;
  /** The most positional operands (non-option arguments) it takes without writing one of them. */
  maxOperands?: number;
  /** When set, every argument must match it: the options known to print no file's contents. */
  onlyArgs?: RegExp;
  /** When set, some argument must match it (what turns a command's default output into names). */
  needsArg?: RegExp;
}

/**
 * A long option as GNU programs take it: any prefix of its name (`--outp` is `--output`), with or
 * without `=value`. Every prefix down to one letter counts, ambiguous ones too (those fail anyway).
 */
const longOption = (name: string) =>
  `--${name[0]}(?:${[...name.slice(1)].map((_, i) => name.slice(1, i + 2)).join('|')})?(?:=|$)`;

/** A revision or path word (no REV:path form, no option). */
const GIT_WORD = String.raw`[^-:][^:]*`;
const GIT_HEADER_OPTIONS = String.raw`--oneline|--graph|--all|--reverse|--no-merges|--merges|--first-parent|--no-decorate|--decorate(?:=\w+)?|--abbrev-commit|-i|--invert-grep|--all-match|-n|-\d+|--max-count=\d+|--(?:since|until|after|before|author|committer|grep|format|pretty|date|abbrev)=.*`;
const GIT_LOG_HEADERS = new RegExp(`^(?:${GIT_WORD}|--|${GIT_HEADER_OPTIONS})$`);
const GIT_SHOW_HEADERS = new RegExp(`^(?:${GIT_WORD}|--|-s|--no-patch|--quiet|${GIT_HEADER_OPTIONS})$`);
const GIT_DIFF_NAMES = new RegExp(
  `^(?:${GIT_WORD}|--|--stat|--name-only|--name-status|--numstat|--shortstat|--cached|--staged)$`,
);

const READ_ONLY: readonly ReadOnlyEntry[] = [
  { prefix: ['ls'] },
  { prefix: ['cat'] },
  { prefix: ['head'] },
  { prefix: ['tail'], unsafeArg: /^(?:-[^-]*f|--follow|-F)/ }, // follows forever
  { prefix: ['wc'] },
  { prefix: ['pwd'] },
  { prefix: ['echo'] },
  { prefix: ['printf'], unsafeArg: /^-[^-]*v/ },
  { prefix: ['true'] },
  { prefix: ['false'] },
  { prefix: ['grep'] },
  {
    prefix: ['rg'],
    unsafeArg: new RegExp(`^(?:${longOption('pre')}|${longOption('search-zip')}|-[a-zA-Z]*z)`),
  },
  {
    prefix: ['find'],
    unsafeArg: /^-(?:exec|execdir|ok|okdir|delete|fprint0?|fprintf|fls)$/,
  },
  { prefix: ['tree'], unsafeArg: /^(?:-[a-zA-Z]*o|--output|-R)/ },
  {
    prefix: ['sort'],
    unsafeArg: new RegExp(`^(?:-[a-zA-Z]*o|${longOption('output')}|${longOption('compress-program')})`),
  },
  { prefix: ['uniq'], maxOperands: 1 }, // `uniq IN OUT` writes OUT
  { prefix: ['cut'] },
  { prefix: ['file'], unsafeArg: /^(?:-[a-zA-Z]*[Cm]|--compile|--magic-file)/ },
  { prefix: ['stat'] },
  { prefix: ['du'] },
  { prefix: ['df'] },
  { prefix: ['which'] },
  { prefix: ['whoami'] },
  { prefix: ['date'], unsafeArg: /^(?:-[a-zA-Z]*s|--set|--se(?:=|$)|-f|--file)/ },
  { prefix: ['uname'] },
  { prefix: ['basename'] },
  { prefix: ['dirname'] },
  { prefix: ['realpath'] },
  { prefix: ['git', 'status'] },
  // git's history holds every file ever committed, denied ones and vaults too, and its pathspecs
  // and REV:path forms are not paths a sandbox can judge: only the forms that print no file's
  // contents are on the list (names and counts, commit headers and messages); the rest ask.
  {
    prefix: ['git', 'diff'],
    onlyArgs: GIT_DIFF_NAMES,
    needsArg: /^--(?:stat|name-only|name-status|numstat|shortstat)$/,
  },
  { prefix: ['git', 'log'], onlyArgs: GIT_LOG_HEADERS },
  { prefix: ['git', 'show'], onlyArgs: GIT_SHOW_HEADERS, needsArg: /^(?:-s|--no-patch|--quiet)$/ },
  { prefix: ['git', 'rev-parse'] },
  { prefix: ['git', 'ls-files'] },
  { prefix: ['git', 'blame'], unsafeArg: /^(?:--textconv|--contents)/ },
];

/** Whether a (parsed, unwrapped) command is on the read-only list with only safe arguments. */
export function isReadOnlyCommand(argv: readonly (string | undefined)[]): boolean {
  return READ_ONLY.some((entry) => {
    if (!entry.prefix.every((word, i) => argv[i] === word)) return false;
    const rest = argv.slice(entry.prefix.length);
    if (rest.some((a) => a === undefined)) return false;
    const args = rest as string[];
    if (entry.unsafeArg && args.some((a) => (entry.unsafeArg as RegExp).test(a))) return false;
    if (entry.onlyArgs && !args.every((a) => (entry.onlyArgs as RegExp).test(a))) return false;
    if (entry.needsArg && !args.some((a) => (entry.needsArg as RegExp).test(a))) return false;
    if (entry.maxOperands !== undefined && operands(args) > entry.maxOperands) return false;
    return true;
  });
}

/** Positional operands: arguments not starting with `-` (or all after `--`). */
function operands(args: readonly string[]): number {
  let count = 0;
  let afterDashes = false;
  for (const a of args) {
    if (!afterDashes && a === '--') afterDashes = true;
    else if (afterDashes || !a.startsWith('-') || a === '-') count++;
  }
  return count;
}
