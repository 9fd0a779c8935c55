/** Where a pruned walk gets its rules: the ignore file toolgate hands ripgrep as its stdin. */
export const PRUNE_RULES_FILE = '/dev/stdin';

/** One entry ripgrep's walk skipped by those rules, relative to where it walked. */
export interface PrunedEntry {
  path: string;
  /** The rule matches directories only (`dist/`): the entry is a directory. */
  directory: boolean;
}

/** More skipped entries than any walk needs to report; past it the log counts as unread. */
const MAX_ENTRIES = 200_000;

/** ripgrep 15's `--debug` line for an entry its walk skipped by a line of the rules file. */
const SKIPPED =
  /^rg: DEBUG\|ignore::walk\|[^|]*: ignoring (\.\/.*|\.): Ignore\(IgnoreMatch\(Gitignore\(Glob \{ from: Some\("\/dev\/stdin"\), original: "(?:[^"\\]|\\.)*", actual: "(?:[^"\\]|\\.)*", is_whitelist: false, is_only_dir: (true|false) \}\)\)\)$/;
/** How every line about an entry skipped by a line of the rules file ends, however it begins. */
const BY_THE_RULES = /: Ignore\(IgnoreMatch\(Gitignore\(Glob \{ from: Some\("\/dev\/stdin"\), .* \}\)\)\)$/;
/** Its line saying it read the rules file: proof that the log speaks the language read here. */
const OPENED = /^rg: DEBUG\|ignore::gitignore\|[^|]*: opened gitignore file: \/dev\/stdin$/;

/**
 * Reads ripgrep's `--debug` log, line by line, for what its walk skipped by the rules toolgate sent
 * (prune-rules.ts), so one walk both searches and says what it left out: the caller then asks its
 * own .gitignore filter whether each skipped entry is one git ignores too.
 *
 * Read to fail towards "unread": a line about those rules that is not exactly ripgrep 15's form
 * (a path not in UTF-8 arrives altered; a path holding a line break splits its line), no line
 * saying the rules were read (another ripgrep), too many entries, an unfinished last line, or
 * ripgrep killed by anyone but toolgate, and `complete` is false; the caller then searches again
 * without pruning. A path holding a line break can also forge a whole line, and so hide the entry
 * it belongs to: what is under such a path is never in grep's answer (a line per match, as in the
 * JavaScript search), and a forged entry only ever costs the second search.
 */
export class PruneLog {
  readonly entries: PrunedEntry[] = [];
  #opened = false;
  #unreadable = false;
  #tooLong = false;

  /** Takes one whole line of ripgrep's stderr (without its line break). */
  feed(line: string): void {
    if (!line.includes(PRUNE_RULES_FILE)) return; // most lines, at the cost of one search
    if (OPENED.test(line)) {
      this.#opened = true;
      return;
    }
    // Other lines may name /dev/stdin too (the folder searched, a file's path): not about the rules.
    if (!BY_THE_RULES.test(line)) return;
    const skipped = SKIPPED.exec(line);
    const path = skipped?.[1];
    if (path === undefined || path.includes('\uFFFD') || this.entries.length >= MAX_ENTRIES) {
      this.#unreadable = true;
      return;
    }
    this.entries.push({ path: path === '.' ? '' : path.slice(2), directory: skipped?.[2] === 'true' });
  }

  /**
   * Part of the log is missing: ripgrep ended without a line break after its last line, or was
   * killed (`too long`: by the limit on its log's size).
   */
  unfinished(why: 'cut' | 'too long' = 'cut'): void {
    this.#unreadable = true;
    if (why === 'too long') this.#tooLong = true;
  }

  /** The walk skipped so much for any reason that its log went past its size limit. */
  get tooLong(): boolean {
    return this.#tooLong;
  }

  /** Whether `entries` is everything the walk skipped by the rules. */
  get complete(): boolean {
    return this.#opened && !this.#unreadable;
  }
}
