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
}

/**
 * A long option as GNU programs take it: any prefix of its name (`--outp` is `--output`), with or
 * without `=value`. Every prefix down to one letter counts, ambiguous ones too (those fail anyway).
 */
const longOption = (name: string) =>
  `--${name[0]}(?:${[...name.slice(1)].map((_, i) => name.slice(1, i + 2)).join('|')})?(?:=|$)`;

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
  { prefix: ['git', 'diff'], unsafeArg: /^(?:--output|--ext-diff|--textconv|--no-index)/ },
  { prefix: ['git', 'log'], unsafeArg: /^(?:--output|--ext-diff|--textconv)/ },
  { prefix: ['git', 'show'], unsafeArg: /^(?:--output|--ext-diff|--textconv)/ },
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
