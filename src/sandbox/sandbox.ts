import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../core/tool-error.js';
import { DEFAULT_DENIED_PATTERNS, TOOLGATE_OWN_PATTERNS } from './default-denies.js';
import { denyMatcher } from './deny-matcher.js';
import { type PendingSyncs, pendingFileSyncs } from './pending-syncs.js';

export interface SandboxOptions {
  /** Allowed roots; relative ones resolve against `baseDir`. They must exist. */
  roots: readonly string[];
  /** Where relative tool paths resolve (default: the first root). */
  workingDir?: string;
  /** Base for relative roots (default: process.cwd()). */
  baseDir?: string;
  deniedPatterns?: readonly string[];
  allowAbsolute?: boolean;
  includeDefaultDenies?: boolean;
  /** Exact files to deny as well (the config file in use, the journal). */
  deniedFiles?: readonly string[];
  /**
   * Directories no path tool may touch, with everything under them, even inside a root: the vaults
   * (`[tools.vault] roots`), which only vault_copyto reads, through a sandbox of their own.
   */
  deniedDirs?: readonly string[];
  /** Directories of toolgate's own state (the journal's staging files), with everything under them. */
  ownDirs?: readonly string[];
}

/** A path that passed FR-VAL-04: canonical, inside `root`, not denied. Use `absolute` for I/O. */
export interface ResolvedPath {
  input: string;
  absolute: string;
  root: string;
  /** Relative to its root, forward slashes; '.' for the root itself. What messages show. */
  relative: string;
}

/**
 * Where the usual file systems ignore case (macOS, Windows), `.GIT/hooks` or `.SSH/id_rsa` name the
 * denied file: patterns match without case there.
 */
const CASE_INSENSITIVE = process.platform === 'win32' || process.platform === 'darwin';

/**
 * A `.git` that is not a real directory: a gitfile (`gitdir: …`) or a link sends every git run in
 * that directory, the user's own included, to another repository and its configuration. Creating,
 * replacing or reading one through a tool is refused; the path does not exist yet counts too.
 */
function redirectingGitEntry(absolute: string): boolean {
  const name = path.basename(absolute);
  if ((CASE_INSENSITIVE ? name.toLowerCase() : name) !== '.git') return false;
  try {
    return !lstatSync(absolute).isDirectory();
  } catch {
    return true;
  }
}

function violation(message: string, metadata?: Record<string, unknown>): ToolError {
  return new ToolError('SandboxViolation', message, metadata);
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/** toolgate's own patterns (and each `X/**`'s `X`), for absolute paths without their leading `/`. */
let ownPatterns: ReturnType<typeof denyMatcher> | undefined;
function ownPatternMatch(p: string): boolean {
  ownPatterns ??= denyMatcher(expandPatterns(TOOLGATE_OWN_PATTERNS), CASE_INSENSITIVE);
  return ownPatterns.test(p) !== undefined;
}

/** Expands `X/**` to also match `X`, so the directory itself is denied, not only what is inside. */
function expandPatterns(patterns: readonly string[]): string[] {
  const out = new Set<string>();
  for (const pattern of patterns) {
    out.add(pattern);
    if (pattern.endsWith('/**')) out.add(pattern.slice(0, -3));
  }
  return [...out];
}

/**
 * The filesystem boundary for path tools. State lives in the instance (one per session/server),
 * never in module globals. Implements seed 000 FR-VAL-04 exactly, with DESIGN §4's rules: no
 * URL-decoding, no `~` expansion, no trimming, NUL refused, sibling-prefix safe.
 */
export class Sandbox {
  readonly roots: readonly string[];
  /** Each root with a trailing separator, for prefix checks that a sibling `root-evil` fails. */
  readonly #prefixes: readonly string[];
  readonly workingDir: string;
  readonly allowAbsolute: boolean;
  readonly #patterns: readonly string[];
  /**
   * The denied-pattern matcher, and whether absolute paths need a pattern check too (absolute
   * patterns, or a root inside a denied area). Compiled on the first path checked.
   */
  #deny: { isDenied: (posixPath: string) => string | undefined; checkAbsolute: boolean } | undefined;
  readonly #deniedFiles: ReadonlySet<string>;
  readonly #deniedDirs: readonly string[];
  readonly #ownDirs: readonly string[];
  /** Flushes of files written that are still running: the process's own (docs/DURABILITY.md). */
  readonly pendingSyncs: PendingSyncs = pendingFileSyncs;

  constructor(options: SandboxOptions) {
    const base = options.baseDir ?? process.cwd();
    // No roots (an MCP client's roots that do not overlap ours) is allowed: every path is then refused.
    this.roots = options.roots.map((root) => {
      try {
        return realpathSync.native(path.resolve(base, root));
      } catch {
        throw new Error(`allowed root "${root}" does not exist or cannot be resolved`);
      }
    });
    this.#prefixes = this.roots.map((root) => (root.endsWith(path.sep) ? root : root + path.sep));
    const firstRoot = this.roots[0] as string;
    this.workingDir = options.workingDir
      ? realpathSync.native(path.resolve(base, options.workingDir))
      : firstRoot;
    this.allowAbsolute = options.allowAbsolute ?? false;
    this.#deniedDirs = (options.deniedDirs ?? []).map((dir) => canonicalOrNot(path.resolve(base, dir)));
    this.#ownDirs = (options.ownDirs ?? []).map((dir) => canonicalOrNot(path.resolve(base, dir)));
    const patterns = expandPatterns([
      ...TOOLGATE_OWN_PATTERNS,
      ...(options.includeDefaultDenies === false ? [] : DEFAULT_DENIED_PATTERNS),
      ...(options.deniedPatterns ?? []),
      ...dirPatterns(this.#deniedDirs, this.roots),
      ...rootRelativeDirPatterns(this.#ownDirs, this.roots),
    ]);
    this.#deniedFiles = new Set(
      (options.deniedFiles ?? []).flatMap((file) => deniedFileForms(path.resolve(base, file))),
    );
    patterns.push(...filePatterns(this.#deniedFiles, this.roots));
    this.#patterns = patterns;
    // Compiling the patterns takes milliseconds that a server answering tools/list does not need:
    // done on the first path checked, or now when the config adds patterns (a bad one fails here).
    if (options.deniedPatterns?.length || this.#deniedDirs.length) this.#denials(true);
  }

  #denials(compileAll = false): {
    isDenied: (posixPath: string) => string | undefined;
    checkAbsolute: boolean;
  } {
    if (this.#deny) return this.#deny;
    const patterns = this.#patterns;
    const { test } = denyMatcher(patterns, CASE_INSENSITIVE, compileAll);
    // Relative patterns see the root-relative path; the absolute form only adds something when a
    // pattern is absolute or a root itself lies inside a denied area (say a root under ~/.ssh).
    // A root inside a directory a pattern names (a root at `.git`: its `config` is `.git/config`)
    // is checked by absolute path too, or the pattern would never see the directory's name.
    const named = new Set(
      patterns.flatMap((p) =>
        p
          .split('/')
          .slice(0, -1)
          .filter((segment) => segment && !/[*?[\]{}!]/.test(segment)),
      ),
    );
    const checkAbsolute =
      patterns.some((p) => p.startsWith('/')) ||
      this.roots.some(
        (root) =>
          test(`${toPosix(root)}/x`) !== undefined ||
          toPosix(root)
            .split('/')
            .some((segment) => named.has(CASE_INSENSITIVE ? segment.toLowerCase() : segment)),
      );
    this.#deny = { isDenied: test, checkAbsolute };
    return this.#deny;
  }

  /** The root containing an absolute canonical path, if any (sibling-prefix safe). */
  rootOf(absolute: string): string | undefined {
    const i = this.#rootIndex(absolute);
    return i < 0 ? undefined : this.roots[i];
  }

  #rootIndex(absolute: string): number {
    for (let i = 0; i < this.roots.length; i++) {
      if (absolute === this.roots[i] || absolute.startsWith(this.#prefixes[i] as string)) return i;
    }
    return -1;
  }

  /** Whether an entry found inside a root (by its root-relative and absolute path) is denied. */
  isDeniedEntry(relative: string, absolute: string): boolean {
    return (
      (this.#deny ?? this.#denials()).isDenied(relative) !== undefined ||
      this.#deniedFiles.has(absolute) ||
      within(absolute, this.#deniedDirs) ||
      within(absolute, this.#ownDirs)
    );
  }

  /** The denied directories (vaults) at or under an absolute canonical directory. */
  deniedDirsWithin(absolute: string): string[] {
    const prefix = absolute.endsWith(path.sep) ? absolute : `${absolute}${path.sep}`;
    return this.#deniedDirs.filter((d) => d === absolute || d.startsWith(prefix));
  }

  /** The denied pattern a root-relative path matches, if any (for tools that list many paths). */
  deniedPattern(relative: string): string | undefined {
    return (this.#deny ?? this.#denials()).isDenied(relative);
  }

  /**
   * Like `resolve`, but the final component is not followed: the entry itself (a symlink stays a
   * symlink). For deleting a link without touching its target.
   */
  resolveEntry(input: string): ResolvedPath {
    if (typeof input !== 'string' || input.length === 0)
      throw new ToolError('BadArgs', 'path must be a non-empty string');
    if (input.includes('\0')) return this.resolve(input); // refused there with the NUL message
    const trimmed = input.replace(/[\\/]+$/, '');
    const base = path.basename(trimmed);
    if (trimmed === '' || base === '.' || base === '..') return this.resolve(input);
    const parent = this.resolve(path.dirname(trimmed) === '' ? '.' : path.dirname(trimmed));
    const absolute = path.join(parent.absolute, base);
    const relative = parent.relative === '.' ? base : `${parent.relative}/${base}`;
    return this.#checkDenied({ input, absolute, root: parent.root, relative });
  }

  /** Step 7 of FR-VAL-04: denied patterns (root-relative, and absolute where it matters) and own files. */
  #checkDenied(resolved: ResolvedPath): ResolvedPath {
    const { input, absolute, relative } = resolved;
    const vault = this.#deniedDirs.find((d) => absolute === d || absolute.startsWith(`${d}${path.sep}`));
    if (vault !== undefined) {
      throw violation(
        `path "${relative}" is inside a vault ([tools.vault] roots): no tool but vault_copyto reads a vault; copy what you need into the workspace with vault_copyto`,
        { attempted: input, resolved: relative },
      );
    }
    if (this.#deniedFiles.has(absolute) || within(absolute, this.#ownDirs) || this.#linkToOwnFile(absolute)) {
      throw violation(`path "${relative}" is toolgate's own configuration or state and cannot be accessed`, {
        attempted: input,
        resolved: relative,
      });
    }
    if (redirectingGitEntry(absolute)) {
      throw violation(
        `path "${relative}" would be a .git file or link, which points git at another repository and its configuration (whose programs git runs); create repositories with git itself (git init, git worktree add, git submodule add)`,
        { attempted: input, resolved: relative },
      );
    }
    const deny = this.#deny ?? this.#denials();
    const denied =
      deny.isDenied(relative) ?? (deny.checkAbsolute ? deny.isDenied(toPosix(absolute)) : undefined);
    if (denied !== undefined) {
      throw violation(`path "${relative}" is denied by the pattern "${denied}"`, {
        attempted: input,
        resolved: relative,
        pattern: denied,
      });
    }
    return resolved;
  }

  /** Shows a canonical path relative to its root (never leak absolute paths into messages). */
  display(absolute: string): string {
    const root = this.rootOf(absolute);
    if (!root) return absolute;
    return toPosix(path.relative(root, absolute)) || '.';
  }

  /**
   * Where a command-line argument would point if a program took it as a path, judged like a path
   * tool's: undefined when that is inside the roots and not denied, else the problem in words.
   * Absolute paths and `..` are taken as a program would take them (and judged by where they land).
   */
  commandPathProblem(arg: string, cwd: string): string | undefined {
    if (arg.includes('\0')) return `"${arg}" contains a NUL byte`;
    let absolute: string;
    try {
      absolute = canonicalize(path.resolve(cwd, arg), arg);
    } catch (error) {
      return ToolError.isInstance(error) ? error.message : `"${arg}" cannot be resolved`;
    }
    const index = this.#rootIndex(absolute);
    if (index < 0) return `"${arg}" is outside the allowed roots`;
    const root = this.roots[index] as string;
    const relative =
      absolute === root ? '.' : toPosix(absolute.slice((this.#prefixes[index] as string).length));
    try {
      this.#checkDenied({ input: arg, absolute, root, relative });
      return undefined;
    } catch (error) {
      return ToolError.isInstance(error) ? error.message : `"${arg}" is denied`;
    }
  }

  /**
   * Whether a command's argument names toolgate's own state (issue #30 §10): its config, journal,
   * memory store, trust store, staging files, inside the roots or not. Such a path is refused to
   * commands, not asked: a person answering for a command is not a person owning the state.
   */
  ownStatePath(arg: string, cwd: string): boolean {
    if (arg.includes('\0')) return false;
    let absolute: string;
    try {
      absolute = canonicalize(path.resolve(cwd, arg), arg);
    } catch {
      absolute = path.resolve(cwd, arg);
    }
    return (
      this.#deniedFiles.has(absolute) ||
      within(absolute, this.#ownDirs) ||
      ownPatternMatch(toPosix(absolute).replace(/^\/+/, '')) ||
      this.#linkToOwnFile(absolute)
    );
  }

  /**
   * Whether a file is a hard link to one of toolgate's own files (the journal, the memory store,
   * anything in its own directories): another name for the same inode is the same state. Only
   * files with more than one link are compared, so the common case costs one stat.
   */
  #linkToOwnFile(absolute: string): boolean {
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(absolute);
    } catch {
      return false;
    }
    if (!st.isFile() || st.nlink < 2) return false;
    const same = (file: string) => {
      try {
        const own = statSync(file);
        return own.ino === st.ino && own.dev === st.dev;
      } catch {
        return false;
      }
    };
    for (const file of this.#deniedFiles) if (same(file)) return true;
    for (const dir of this.#ownDirs) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      if (names.some((name) => same(path.join(dir, name)))) return true;
    }
    return false;
  }

  /**
   * A path as git's history names it (`REV:path`, a pathspec), relative to `base`: the file need
   * not exist now. `denied` when the sandbox would refuse that path to every tool (a denied
   * pattern, a vault, toolgate's own files), `outside` when it lies outside the roots.
   */
  historyPathProblem(p: string, base: string): { denied?: string; outside?: string } {
    if (p.includes('\0')) return { denied: `"${p}" contains a NUL byte` };
    let absolute: string;
    try {
      absolute = canonicalize(path.resolve(base, p), p);
    } catch (error) {
      return { outside: ToolError.isInstance(error) ? error.message : `"${p}" cannot be resolved` };
    }
    const index = this.#rootIndex(absolute);
    if (index < 0) return { outside: `"${p}" is outside the allowed roots` };
    const root = this.roots[index] as string;
    const relative =
      absolute === root ? '.' : toPosix(absolute.slice((this.#prefixes[index] as string).length));
    try {
      this.#checkDenied({ input: p, absolute, root, relative });
      return {};
    } catch (error) {
      // A .git entry that is not a directory is a write concern, not a secret in history.
      if (redirectingGitEntry(absolute)) return {};
      return { denied: ToolError.isInstance(error) ? error.message : `"${p}" is denied` };
    }
  }

  /**
   * FR-VAL-04: validates `input` and returns its canonical form. Throws SandboxViolation (or BadArgs
   * for a malformed path). Does no I/O beyond lstat/realpath; race safety is the job of safe-fs.
   */
  resolve(input: string): ResolvedPath {
    if (typeof input !== 'string' || input.length === 0) {
      throw new ToolError('BadArgs', 'path must be a non-empty string');
    }
    if (input.includes('\0')) throw violation('path contains a NUL byte; send the plain path');
    if (this.roots.length === 0) {
      throw violation(
        "no directory is open to tools: the allowed roots and the client's roots do not overlap",
      );
    }
    // 1. absolute paths
    if (path.isAbsolute(input) && !this.allowAbsolute) {
      throw violation(
        this.roots.length > 1
          ? `absolute path "${input}" is not allowed; relative paths start in the first root, so to reach the others set [tools.sandbox] allow_absolute = true (absolute paths inside any root are then accepted)`
          : `absolute path "${input}" is not allowed; use a path relative to the workspace root`,
      );
    }
    // 2. lexical traversal: any `..` component, with either separator, is refused outright.
    if (input.includes('..') && input.split(/[\\/]/).includes('..')) {
      throw violation(`path "${input}" contains a ".." component; use a path inside the workspace`);
    }
    // 3. resolve against the working directory (lexical; no `..` is left to collapse).
    const lexical = path.resolve(this.workingDir, input);
    // 4-5. canonicalize the deepest existing ancestor, then rebuild the rest under it.
    const absolute = canonicalize(lexical, input);
    // 6. containment
    const index = this.#rootIndex(absolute);
    if (index < 0) {
      throw violation(`path "${input}" resolves outside the allowed roots`, {
        attempted: input,
        resolved: absolute,
      });
    }
    const root = this.roots[index] as string;
    const relative =
      absolute === root ? '.' : toPosix(absolute.slice((this.#prefixes[index] as string).length));
    // 7. denied patterns, on the root-relative and the absolute normalized forms.
    return this.#checkDenied({ input, absolute, root, relative });
  }
}

/** A directory's canonical path; one that does not exist (yet) is taken as written. */
/** The path with every link resolved, or as given when it does not exist (yet). */
export function canonicalOrNot(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return dir;
  }
}

/**
 * A denied file as paths are compared (canonical): its directory's links resolved, so a file named
 * through a linked directory is still the file denied; the spelling given is kept too.
 */
function deniedFileForms(file: string): string[] {
  const canonical = path.join(canonicalOrNot(path.dirname(file)), path.basename(file));
  return canonical === file ? [file] : [file, canonical];
}

/** Glob text for a literal path: every character picomatch could read as syntax escaped. */
function literalGlob(p: string): string {
  return toPosix(p).replace(/[*?[\]{}()!+@\\]/g, '\\$&');
}

/** Whether a path.relative() result stays inside its base (not `..`, not another drive). */
function isBelow(rel: string): boolean {
  return rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * Denied directories as patterns, so that tools which walk a tree and ask only `deniedPattern`
 * (grep, glob, list_directory) leave them out too: the absolute form, and the form relative to each
 * root that holds one (a root inside one is wholly denied).
 */
/**
 * Patterns for directories inside (or holding) a root, so tools that walk a tree leave them out; an
 * absolute path is checked with `within` instead (an absolute pattern would make every path check
 * match absolute paths too).
 */
function rootRelativeDirPatterns(dirs: readonly string[], roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    for (const root of roots) {
      const rel = path.relative(root, dir);
      if (rel === '' || root.startsWith(`${dir}${path.sep}`)) out.push('**');
      else if (isBelow(rel)) out.push(`${literalGlob(rel)}/**`);
    }
  }
  return out;
}

/** Whether an absolute canonical path is one of the directories or under one. */
function within(absolute: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => absolute === d || absolute.startsWith(`${d}${path.sep}`));
}

function dirPatterns(dirs: readonly string[], roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    out.push(`${literalGlob(dir)}/**`);
    for (const root of roots) {
      const rel = path.relative(root, dir);
      if (rel === '' || root.startsWith(`${dir}${path.sep}`)) out.push('**');
      else if (isBelow(rel)) out.push(`${literalGlob(rel)}/**`);
    }
  }
  return out;
}

/**
 * Denied files inside a root as root-relative literal patterns, so tools that walk a tree (grep,
 * glob, list_directory) leave them out too, not only tools that open a path.
 */
function filePatterns(files: ReadonlySet<string>, roots: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    for (const root of roots) {
      const rel = path.relative(root, file);
      if (rel !== '' && isBelow(rel)) out.push(literalGlob(rel));
    }
  }
  return out;
}

function canonicalize(lexical: string, input: string): string {
  const pending: string[] = [];
  let current = lexical;
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return pending.length ? path.join(real, ...pending.reverse()) : real;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw violation(`path "${input}" goes through a symbolic link loop`);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        throw violation(`path "${input}" cannot be resolved (${code ?? 'error'})`);
      }
      // A link whose target is missing exists as a name: following it could create a file outside.
      if (code === 'ENOENT' && isSymlink(current)) {
        throw violation(`path "${input}" goes through a symbolic link whose target does not exist`);
      }
      const parent = path.dirname(current);
      if (parent === current) throw violation(`path "${input}" cannot be resolved`);
      pending.push(path.basename(current));
      current = parent;
    }
  }
}

function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
