/**
 * Options with which a git subcommand an allow rule names (`allow = ["git diff"]`, `["git log"]`)
 * does more than the rule says (issue #29, second review): it writes a file (`--output`), reads
 * paths no word names (`--no-index` walks directories: denied files printed), or prints the
 * contents of every file in history (`git log -p --all`, denied and vault files too). These run
 * unasked only when the rule's own words name them; git's long options are taken by any unique
 * prefix, as git's parse-options does.
 */
const WRITES_OR_READS_ANYWHERE = ['output', 'output-directory', 'no-index'];
const PRINTS_HISTORY = [
  'patch',
  'unified',
  'patch-with-stat',
  'patch-with-raw',
  'cc',
  'full-diff',
  'word-diff',
  'word-diff-regex',
  'color-words',
  'textconv',
  'ext-diff',
  'binary',
  'raw',
];
/** Subcommands that print no content unless told to (`-p`): for them the history options count. */
const HISTORY_LISTERS = new Set(['log', 'show', 'whatchanged', 'reflog', 'shortlog', 'rev-list']);

function longName(word: string): string | undefined {
  if (!word.startsWith('--')) return undefined;
  const eq = word.indexOf('=');
  return eq < 0 ? word.slice(2) : word.slice(2, eq);
}

/** Whether `word` (a long option, maybe abbreviated) could be one of `names`. */
function couldBe(word: string, names: readonly string[]): boolean {
  const name = longName(word);
  return name !== undefined && name.length >= 2 && names.some((n) => n.startsWith(name));
}

/**
 * Index of the first word (in git's argv after its global options: `git SUB …`) that an allow rule
 * naming `named` words does not cover, or -1. Any word known only at run time counts too.
 */
export function gitOptionNeedingName(argv: readonly (string | undefined)[], named: number): number {
  const sub = argv[1];
  // Contents limited to paths named after `--` are reads of those paths, which the planner judges
  // (a denied one is refused): only unlimited history needs the rule to name the option.
  const dashes = argv.indexOf('--');
  const limited =
    dashes >= 0 && argv.length > dashes + 1 && argv.slice(dashes + 1).every((w) => w !== undefined);
  const history = sub !== undefined && HISTORY_LISTERS.has(sub) && !limited;
  for (let i = Math.max(2, named); i < argv.length; i++) {
    const word = argv[i];
    if (word === undefined) continue; // judged as a run-time argument by the planner
    if (word === '--') break;
    if (couldBe(word, WRITES_OR_READS_ANYWHERE) || word === '-o') return i;
    if (!history) continue;
    if (couldBe(word, PRINTS_HISTORY)) return i;
    // Short forms: -p, -u, -U<n>, -c, -m, -L<range>:<file>, and clusters holding p or u.
    if (/^-(?:[a-zA-Z]*[pu][a-zA-Z]*|U\d*|c|m|L.*)$/.test(word)) return i;
  }
  return -1;
}
