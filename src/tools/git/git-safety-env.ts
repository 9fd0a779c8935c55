import { spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type ConfigFileEntry, readConfigFiles } from './config-file-entries.js';

/**
 * What a command's environment must change so that no git it starts runs a program the
 * repository, `$HOME`, XDG or an include names: `set` these, `unset` those first.
 */
export interface GitSafety {
  set: Record<string, string>;
  unset: string[];
  /**
   * Why git could NOT be neutralised here (a git older than 2.31 cannot read the settings; the
   * config could not be listed): a command that starts git must then not run without a person's
   * approval. Undefined when the environment does what it says, or when there is no git at all.
   */
  problem?: string;
  /** `git version`'s number, or undefined when no git is installed (nothing to neutralise). */
  gitVersion?: string;
}

/** Settings that hold for every git, whatever any config says (command scope beats every file). */
const FIXED: readonly (readonly [string, string])[] = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['core.pager', 'cat'],
  ['core.editor', '/dev/null'],
  ['sequence.editor', '/dev/null'],
  ['core.askPass', ''],
  ['credential.helper', ''], // an empty helper resets the list gathered from every file before it
  ['protocol.allow', 'never'],
  ...['file', 'git', 'http', 'https', 'ssh'].map((p) => [`protocol.${p}.allow`, 'always'] as const),
  ['protocol.ext.allow', 'never'],
  ['protocol.fd.allow', 'never'],
  ['submodule.recurse', 'false'],
  ['fetch.recurseSubmodules', 'false'],
  ['push.recurseSubmodules', 'no'],
  ['diff.ignoreSubmodules', 'all'],
  ['status.submoduleSummary', 'false'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['tag.forceSignAnnotated', 'false'],
  ['push.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['merge.verifySignatures', 'false'],
  // /dev/null cannot be executed: a signature check asked for explicitly fails instead of running one.
  ['gpg.program', '/dev/null'],
  ['gpg.openpgp.program', '/dev/null'],
  ['gpg.x509.program', '/dev/null'],
  ['gpg.ssh.program', '/dev/null'],
  ['gpg.ssh.defaultKeyCommand', '/dev/null'],
  // Automatic gc stays in the command's process group instead of detaching from it.
  ['gc.autoDetach', 'false'],
  ['maintenance.autoDetach', 'false'],
  ['help.format', 'man'],
  ['man.viewer', 'man'],
];

/**
 * Keys whose program only runs when configured, so they are overridden only where some file sets
 * them: an empty command makes git fail with "cannot run" rather than run anything (an override
 * everywhere would break every `git diff`). `--no-ext-diff` / `--no-textconv` get the plain diff.
 */
const WHEN_SET: Readonly<Record<string, string>> = {
  'diff.external': '',
  'uploadpack.packobjectshook': '',
  'core.alternaterefscommand': '',
  'imap.tunnel': '',
  'sendemail.tocmd': '',
  'sendemail.cccmd': '',
  'sendemail.headercmd': '',
  'sendemail.smtpserver': 'localhost',
};

/** Per driver section: the keys switched off where a file defines them, and with what. */
const DRIVER_KEYS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  diff: { textconv: '', command: '' },
  merge: { driver: '' },
  difftool: { cmd: '/dev/null', path: '/dev/null' },
  mergetool: { cmd: '/dev/null', path: '/dev/null' },
  browser: { cmd: '/dev/null', path: '/dev/null' },
  man: { cmd: '/dev/null', path: '/dev/null' },
  trailer: { cmd: '', command: '' },
  submodule: { update: 'checkout' },
};

/** Inherited GIT_* variables that steer nothing git runs and pick no other repository. */
const KEPT_GIT_VARIABLES = new Set([
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_NOSYSTEM',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_HTTP_USER_AGENT',
  'GIT_HTTP_LOW_SPEED_LIMIT',
  'GIT_HTTP_LOW_SPEED_TIME',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'GIT_MERGE_VERBOSITY',
  'GIT_DEFAULT_HASH',
  'GIT_FLUSH',
  'GIT_SSH_COMMAND', // the user's own; replaced by plain `ssh` when absent (core.sshCommand is the repository's)
]);

/** Variables outside GIT_* through which git (or ssh under it) runs a program. */
const OTHER_UNSET = ['SSH_ASKPASS'];

/** Only these transports: `ext::`, `fd::` and every remote helper (`foo::url`) are refused. */
const ALLOWED_PROTOCOLS = ['file', 'git', 'http', 'https', 'ssh'];

/**
 * `remote.<name>.uploadpack`/`receivepack` is the one setting git takes from the FIRST file that
 * sets it, so no later value overrides it; it runs a local program only over the local (`file`)
 * transport. Where any config names one, that transport is refused instead.
 */
const FIRST_WINS = /^remote\..+\.(?:uploadpack|receivepack)$/;

/**
 * The environment that switches off, for EVERY git process a command starts (submodules and
 * lazy fetches included), everything with which git runs a program: hooks, fsmonitor, pagers,
 * editors, credential/ssh/askpass helpers, proxies, signing programs, transports other than
 * file/git/http(s)/ssh, submodule recursion, lazy fetch, and every filter, textconv, diff command,
 * merge driver, tool, trailer command and `!` alias that any config file git could read at `cwd`
 * (system, global, XDG, the repository's, its worktrees' and submodules', every include whatever
 * its condition) defines. Computed when the command starts; cached while none of those files changed.
 * `also`: more directories where the command may run git (the `cd` targets of its line): a nested
 * repository's own drivers are found only there (the fixed settings hold everywhere).
 */
export function gitSafetyEnv(cwd: string, env: NodeJS.ProcessEnv, also: readonly string[] = []): GitSafety {
  const version = gitVersion(env.PATH);
  const unset = Object.keys(env).filter(
    (name) => (name.startsWith('GIT_') && !KEPT_GIT_VARIABLES.has(name)) || OTHER_UNSET.includes(name),
  );
  const clean: NodeJS.ProcessEnv = { ...env };
  for (const name of unset) delete clean[name];
  const set: Record<string, string> = {
    GIT_PAGER: 'cat',
    GIT_EDITOR: '/dev/null',
    GIT_SEQUENCE_EDITOR: '/dev/null',
    GIT_SSH_COMMAND: env.GIT_SSH_COMMAND || 'ssh',
    GIT_PROXY_COMMAND: '', // set but empty: no proxy, and core.gitProxy is not consulted
    GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS.join(':'),
    GIT_NO_LAZY_FETCH: '1', // git 2.39.4 / 2.45.1 and later; before, the transports above bound it
    GIT_TERMINAL_PROMPT: '0',
  };
  if (version.missing) return { set, unset };
  const merged = new Map<string, string>();
  let only: [string, string][] | undefined; // one directory: its cached list itself
  const dirs = new Set([cwd, ...also]);
  for (const dir of dirs) {
    const found = overrides(dir, clean);
    if (typeof found === 'string') return { set, unset, problem: found, gitVersion: version.number };
    if (dirs.size === 1) only = found;
    for (const [key, value] of found) merged.set(key, value);
  }
  const settings = only ?? [...merged];
  if (settings.some(([key, value]) => key === 'protocol.file.allow' && value === 'never'))
    set.GIT_ALLOW_PROTOCOL = ALLOWED_PROTOCOLS.filter((p) => p !== 'file').join(':');
  // One variable, as `git -c` itself hands its settings to the gits it starts ('key'='value' …,
  // git 2.31's form, which keeps a key holding `=` whole): command scope, and far fewer variables
  // for every spawn to copy than GIT_CONFIG_COUNT's two per setting (~0.7 ms a command here).
  set.GIT_CONFIG_PARAMETERS = parameters(settings);
  const result: GitSafety = { set, unset, gitVersion: version.number };
  if (version.problem) result.problem = version.problem;
  return result;
}

/** `env` with `safety` applied: what a command (or toolgate's own git) runs with. */
export function withGitSafety(env: NodeJS.ProcessEnv, safety: GitSafety): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of safety.unset) delete out[name];
  return Object.assign(out, safety.set);
}

const versions = new Map<string, { number?: string; missing?: true; problem?: string }>();

const joined = new WeakMap<readonly [string, string][], string>();

/** The settings as GIT_CONFIG_PARAMETERS, made once per list of settings (they are cached). */
function parameters(settings: readonly [string, string][]): string {
  let text = joined.get(settings);
  if (text === undefined) {
    text = settings.map(([key, value]) => `${sq(key)}=${sq(value)}`).join(' ');
    joined.set(settings, text);
  }
  return text;
}

/** Text single-quoted as git's own sq_quote does it (git dequotes GIT_CONFIG_PARAMETERS so). */
function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Which git runs here (once per PATH): GIT_CONFIG_PARAMETERS's 'key'='value' form needs 2.31. */
function gitVersion(pathVariable: string | undefined): { number?: string; missing?: true; problem?: string } {
  const key = pathVariable ?? '';
  const known = versions.get(key);
  if (known) return known;
  const run = spawnSync('git', ['version'], {
    env: { PATH: pathVariable ?? '' },
    encoding: 'utf8',
    timeout: 5000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let answer: { number?: string; missing?: true; problem?: string };
  const m = /(\d+)\.(\d+)(?:\.\d+)?/.exec(run.stdout ?? '');
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') answer = { missing: true };
  else if (!m) answer = { problem: 'the installed git did not say its version' };
  else {
    const [major, minor] = [Number(m[1]), Number(m[2])];
    answer =
      major > 2 || (major === 2 && minor >= 31)
        ? { number: m[0] }
        : {
            number: m[0],
            problem: `git ${m[0]} is older than 2.31 and misreads GIT_CONFIG_PARAMETERS's 'key'='value' form, so the repository's programs cannot be switched off; install git 2.31 or later`,
          };
  }
  versions.set(key, answer);
  return answer;
}

/** A file's identity and content version, or "missing". */
function signature(file: string): string {
  try {
    // Looked at for every command: an absent file answers without an exception (they cost ~10 µs).
    const s = statSync(file, { bigint: true, throwIfNoEntry: false });
    return s ? `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : 'missing';
  } catch {
    return 'missing';
  }
}

interface Cached {
  settings: [string, string][];
  watched: Map<string, string>;
}
const cache = new Map<string, Cached>();
const CACHE_ENTRIES = 64;

/** The `-c` settings for `cwd` (cached while every file they came from is unchanged), or a problem. */
function overrides(cwd: string, env: NodeJS.ProcessEnv): [string, string][] | string {
  const key = JSON.stringify([
    cwd,
    env.HOME,
    env.XDG_CONFIG_HOME,
    env.GIT_CONFIG_GLOBAL,
    env.GIT_CONFIG_SYSTEM,
    env.GIT_CONFIG_NOSYSTEM,
    env.PATH,
  ]);
  const hit = cache.get(key);
  if (hit && [...hit.watched].every(([file, sig]) => signature(file) === sig)) return hit.settings;
  const watched = new Map<string, string>();
  const watch = (file: string) => {
    if (!watched.has(file)) watched.set(file, signature(file));
  };
  const listed = listConfig(cwd, env);
  if (typeof listed === 'string') return listed;
  const files = new Set(listed.files);
  try {
    for (const file of candidateFiles(cwd, env, watch)) files.add(file);
  } catch (error) {
    return `the repository's git directories could not all be read (${(error as Error).message})`;
  }
  const entries = [...listed.entries, ...readConfigFiles([...files], env.HOME, watch)];
  const settings = settingsFor(entries);
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  cache.set(key, { settings, watched });
  return settings;
}

/** What git itself lists at `cwd` (every scope, active includes), and the files it came from. */
function listConfig(
  cwd: string,
  env: NodeJS.ProcessEnv,
): { entries: ConfigFileEntry[]; files: string[] } | string {
  const run = spawnSync('git', ['config', '--list', '--show-origin', '-z'], {
    cwd,
    env: { ...env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
    encoding: 'utf8',
    timeout: 10_000,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (run.error)
    return `git's config could not be listed (${(run.error as NodeJS.ErrnoException).code ?? run.error.message})`;
  // A config git cannot parse makes every git command there fail before it runs anything; the
  // files are still read below, so nothing they define is missed.
  const fields = (run.stdout ?? '').split('\0');
  const entries: ConfigFileEntry[] = [];
  const files: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i] as string;
    if (origin.startsWith('file:')) files.push(path.resolve(cwd, origin.slice(5)));
    const entry = fields[i + 1] as string;
    const newline = entry.indexOf('\n');
    const name = newline < 0 ? entry : entry.slice(0, newline);
    const first = name.indexOf('.');
    const last = name.lastIndexOf('.');
    if (first < 0) continue;
    entries.push({
      section: name.slice(0, first).toLowerCase(),
      subsection: first === last ? undefined : name.slice(first + 1, last),
      key: name.slice(last + 1).toLowerCase(),
      value: newline < 0 ? 'true' : entry.slice(newline + 1),
    });
  }
  return { entries, files: [...new Set(files)] };
}

/**
 * Config files git may read at `cwd` besides those it listed: the global and XDG files, the
 * repository's own (found the way git finds it, through `.git` files and `commondir`), its
 * worktrees' and its submodules' (under `modules/`, and the `.git` of each path `.gitmodules` names).
 */
function candidateFiles(cwd: string, env: NodeJS.ProcessEnv, watch: (file: string) => void): string[] {
  const files: string[] = [];
  const home = env.HOME;
  if (env.GIT_CONFIG_GLOBAL) files.push(path.resolve(cwd, env.GIT_CONFIG_GLOBAL));
  if (home) files.push(path.join(home, '.gitconfig'));
  files.push(
    path.join(env.XDG_CONFIG_HOME || (home ? path.join(home, '.config') : '/nonexistent'), 'git', 'config'),
  );
  files.push(env.GIT_CONFIG_SYSTEM ? path.resolve(cwd, env.GIT_CONFIG_SYSTEM) : '/etc/gitconfig');
  const repo = discoverRepository(cwd, watch);
  if (!repo) return files;
  for (const dir of new Set([repo.gitDir, repo.commonDir])) {
    files.push(path.join(dir, 'config'), path.join(dir, 'config.worktree'));
  }
  for (const dir of subdirectories(path.join(repo.commonDir, 'worktrees'), watch))
    files.push(path.join(dir, 'config.worktree'));
  for (const dir of subdirectories(path.join(repo.commonDir, 'modules'), watch))
    files.push(path.join(dir, 'config'), path.join(dir, 'config.worktree'));
  if (repo.workTree) {
    const gitmodules = path.join(repo.workTree, '.gitmodules');
    watch(gitmodules);
    for (const entry of readConfigFiles([gitmodules], undefined, () => {})) {
      if (entry.section !== 'submodule' || entry.key !== 'path') continue;
      const sub = discoverRepository(path.resolve(repo.workTree, entry.value), watch, true);
      if (sub) files.push(path.join(sub.gitDir, 'config'), path.join(sub.commonDir, 'config'));
    }
  }
  return files;
}

/** More directories than this under `modules/` or `worktrees/` fail closed (a problem, not a partial list). */
const MAX_GIT_DIRS = 5000;
/** Inside a git directory these hold objects and refs, never another repository's config. */
const GIT_DIR_DATA = new Set(['objects', 'refs', 'logs', 'lfs']);

/**
 * Every directory under `dir`, at any depth (a submodule's name may contain slashes), each one
 * watched; a git directory's object and ref stores are not entered. Throws past MAX_GIT_DIRS.
 */
function subdirectories(dir: string, watch: (file: string) => void, out: string[] = []): string[] {
  watch(dir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  const isGitDir = names.includes('HEAD');
  for (const name of names) {
    if (isGitDir && GIT_DIR_DATA.has(name)) continue;
    const child = path.join(dir, name);
    try {
      if (!lstatSync(child).isDirectory()) continue;
    } catch {
      continue;
    }
    out.push(child);
    if (out.length > MAX_GIT_DIRS)
      throw new Error(`more than ${MAX_GIT_DIRS} directories under ${path.basename(dir)}/`);
    subdirectories(child, watch, out);
  }
  return out;
}

/**
 * The repository git would use at `cwd`: the nearest `.git` (a directory, or a file saying
 * `gitdir: …`), its `commondir`. `here` looks only at `cwd` itself. Every `.git` looked at is watched,
 * so one appearing later invalidates the cache.
 */
function discoverRepository(
  cwd: string,
  watch: (file: string) => void,
  here = false,
): { gitDir: string; commonDir: string; workTree?: string } | undefined {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, '.git');
    watch(dotGit);
    let gitDir: string | undefined;
    try {
      if (statSync(dotGit).isDirectory()) gitDir = dotGit;
      else {
        const m = /^gitdir:\s*(.*?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
        if (m?.[1]) gitDir = path.resolve(dir, m[1]);
      }
    } catch {
      // no .git here
    }
    if (gitDir) {
      const commondirFile = path.join(gitDir, 'commondir');
      watch(commondirFile);
      let commonDir = gitDir;
      try {
        commonDir = path.resolve(gitDir, readFileSync(commondirFile, 'utf8').trim());
      } catch {
        // not a linked worktree
      }
      return { gitDir, commonDir, workTree: dir };
    }
    if (here || path.dirname(dir) === dir) return undefined;
  }
}

/** The command-scope settings for everything `entries` define, after the fixed ones. */
function settingsFor(entries: readonly ConfigFileEntry[]): [string, string][] {
  const out = new Map<string, string>(FIXED.map(([k, v]) => [k, v]));
  for (const { section, subsection, key, value } of entries) {
    if (FIRST_WINS.test(`${section}.${subsection}.${key}`)) out.set('protocol.file.allow', 'never');
    // An alias (`alias.x` or `alias.x.y`, git's name for `x.y`) that runs a shell command (`!…`) or
    // starts with git's own options (`-c core.fsmonitor=…`, which git applies after ours, so it
    // wins): emptied; an empty alias makes git refuse it.
    if (section === 'alias') {
      if (/^\s*[!-]/.test(value))
        out.set(subsection === undefined ? `alias.${key}` : `alias.${subsection}.${key}`, '');
      continue;
    }
    if (subsection === undefined) {
      const full = `${section}.${key}`;
      const off = WHEN_SET[full];
      if (off !== undefined) out.set(full, off);
      continue;
    }
    if (section === 'filter') {
      for (const part of ['clean', 'smudge', 'process']) out.set(`filter.${subsection}.${part}`, '');
      out.set(`filter.${subsection}.required`, 'false');
      continue;
    }
    const off = DRIVER_KEYS[section]?.[key];
    if (off !== undefined) out.set(`${section}.${subsection}.${key}`, off);
  }
  return [...out];
}
