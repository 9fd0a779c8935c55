import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import ignore, { type Ignore } from 'ignore';

/**
 * Case as git matches it: exactly on Linux (core.ignorecase is false on a case-sensitive file
 * system), without case where the usual file systems ignore it. The package's default ignores case
 * everywhere, so `deep/` hid `Deep` too (found by Property 24's test against git).
 */
const IGNORE_OPTIONS = { ignorecase: process.platform === 'darwin' || process.platform === 'win32' };

/**
 * Answers "is this path ignored by git?" for paths under one root, honouring every .gitignore from
 * the root down (nested files are relative to their own directory) and ignored parent directories.
 * .gitignore files are loaded lazily, once each, without following links, synchronously: a walk
 * asks about thousands of paths and most folders have no .gitignore at all.
 */
export class GitignoreFilter {
  readonly #root: string;
  /** Depth of the search base under the root: it and its ancestors are never "ignored" (as in rg). */
  readonly #baseDepth: number;
  readonly #baseParts: readonly string[];
  readonly #rules = new Map<string, Ignore | undefined>();
  /** The text each rule set was made from (for `ruleText`). */
  readonly #texts = new Map<string, string>();
  /** Per directory: the rule sets that apply inside it (root first), each with where its paths start. */
  readonly #chains = new Map<string, readonly RuleSet[]>();
  /** Verified directory descriptors (`/proc/self/fd/N`) to read a folder's .gitignore through. */
  readonly #through = new Map<string, string>();
  readonly #dirIgnored = new Map<string, boolean>();

  /**
   * `base` is where the search starts (relative to the root): naming it explicitly means searching
   * it, even when an ancestor's .gitignore lists it (say `node_modules`), as ripgrep does.
   */
  constructor(root: string, base = '') {
    this.#root = root;
    this.#baseParts = base === '.' ? [] : base.split('/').filter(Boolean);
    this.#baseDepth = this.#baseParts.length;
  }

  /**
   * A walk that holds a verified descriptor for `dir` (relative to the root) reads its .gitignore
   * through it, so a folder swapped for a link meanwhile cannot lend another folder's rules.
   */
  readThrough(dir: string, fdPath: string): void {
    if (!this.#rules.has(dir)) this.#through.set(dir, fdPath);
  }

  #rulesFor(dir: string): Ignore | undefined {
    if (this.#rules.has(dir)) return this.#rules.get(dir);
    const folder = this.#through.get(dir) ?? `${this.#root}${dir ? `/${dir}` : ''}`;
    this.#through.delete(dir);
    const read = readSmallFileSync(`${folder}/.gitignore`);
    const text = read === undefined ? undefined : this.#withoutBaseExclusions(dir, read);
    const rules = text === undefined ? undefined : ignore(IGNORE_OPTIONS).add(text);
    if (text !== undefined) this.#texts.set(dir, text);
    this.#rules.set(dir, rules);
    return rules;
  }

  /**
   * The lines of `dir`'s .gitignore as this filter applies them (above the base, without the lines
   * that exclude the base), or undefined when it has none. Read once, like the rules themselves.
   */
  ruleText(dir: string): string | undefined {
    this.#rulesFor(dir);
    return this.#texts.get(dir);
  }

  /**
   * In a .gitignore above the search base, lines that exclude the base or one of its ancestors are
   * dropped: the base was named explicitly, so it and what is under it are searched (the other
   * lines, like `*.tmp`, still apply).
   */
  #withoutBaseExclusions(dir: string, text: string): string {
    const depth = dir === '' ? 0 : dir.split('/').length;
    if (depth >= this.#baseDepth) return text;
    const below = this.#baseParts.slice(depth);
    const prefixes = below.map((_, i) => `${below.slice(0, i + 1).join('/')}/`);
    return text
      .split(/\r?\n/)
      .filter((line) => {
        const t = line.trim();
        if (t === '' || t.startsWith('#') || t.startsWith('!')) return true;
        const one = ignore(IGNORE_OPTIONS).add(line);
        return !prefixes.some((p) => one.ignores(p));
      })
      .join('\n');
  }

  /** The rule sets of `dir` and its ancestors, root first; built once per directory from its parent's. */
  #chainFor(dir: string): readonly RuleSet[] {
    const known = this.#chains.get(dir);
    if (known) return known;
    const parent = dir === '' ? [] : this.#chainFor(parentOf(dir));
    const own = this.#rulesFor(dir);
    const chain = own ? [...parent, { rules: own, from: dir === '' ? 0 : dir.length + 1 }] : parent;
    this.#chains.set(dir, chain);
    return chain;
  }

  /**
   * Whether `path` (under the root, in directory `dir`) is excluded by the .gitignore files of its
   * ancestors, as git decides: the deepest file that has a say wins (an `!x1` in docs/.gitignore
   * re-includes what the root's `docs/*` excluded), and within one file the last matching line.
   */
  #matched(dir: string, path: string, isDirectory: boolean): boolean {
    const chain = this.#chainFor(dir);
    for (let i = chain.length - 1; i >= 0; i--) {
      const { rules, from } = chain[i] as RuleSet;
      const rest = path.slice(from);
      const verdict = testAlone(rules, isDirectory ? `${rest}/` : rest);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }

  /** Whether directory `dir` lies in an ignored directory or is one itself (the base and above never are). */
  #directoryIgnored(dir: string): boolean {
    if (dir === '') return false;
    const known = this.#dirIgnored.get(dir);
    if (known !== undefined) return known;
    const parent = parentOf(dir);
    const result =
      dir.split('/').length > this.#baseDepth &&
      (this.#directoryIgnored(parent) || this.#matched(parent, dir, true));
    this.#dirIgnored.set(dir, result);
    return result;
  }

  ignores(relative: string, isDirectory = false): boolean {
    // Walks hand over clean paths; anything else is cleaned of empty segments first.
    const path =
      relative.startsWith('/') || relative.endsWith('/') || relative.includes('//')
        ? relative.split('/').filter(Boolean).join('/')
        : relative;
    if (path === '') return false;
    const dir = parentOf(path);
    if (this.#directoryIgnored(dir)) return true;
    return isDirectory ? this.#directoryIgnored(path) : this.#matched(dir, path, false);
  }
}

/**
 * One rule set's verdict on `path` itself, its parent folders not consulted: the caller has
 * already decided them through the whole chain of .gitignore files. The package's `test()` checks
 * the parents against this one set, so the root's `build/` excluded `src/x/build/a.ts` although
 * src/.gitignore's `!build/` re-includes that folder (git keeps it). Its per-path test is not
 * public: the pinned version's is checked at load, and a missing one fails loudly.
 */
type RuleList = { test(path: string, mode: 'regex'): { ignored: boolean; unignored: boolean } };
function testAlone(rules: Ignore, path: string): { ignored: boolean; unignored: boolean } {
  return (rules as unknown as { _rules: RuleList })._rules.test(path, 'regex');
}
if (typeof (ignore() as unknown as { _rules?: Partial<RuleList> })._rules?.test !== 'function')
  throw new Error(
    'the installed `ignore` package has no per-path rule test (its version changed): pin the version package.json names and run npm ci',
  );

interface RuleSet {
  rules: Ignore;
  /** Where, in a root-relative path, the part relative to this set's directory begins. */
  from: number;
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '' : path.slice(0, cut);
}

const MAX_GITIGNORE_BYTES = 1 << 20;

/**
 * Reads a .gitignore without following a link, synchronously: a missing one (the usual case)
 * costs one lstat that answers "none" without building an error, instead of a failed open or a
 * trip through the thread pool, which matters when a walk checks thousands of folders. Anything
 * odd (a link, a FIFO, too big) counts as no file.
 */
function readSmallFileSync(file: string): string | undefined {
  let fd: number | undefined;
  try {
    if (!lstatSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_GITIGNORE_BYTES) return undefined;
    return readFileSync(fd).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
