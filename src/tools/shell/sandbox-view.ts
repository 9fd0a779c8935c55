import { execFile } from 'node:child_process';
import { type Dirent, existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { denyMatcher } from '../../sandbox/deny-matcher.js';
import { helperEnv } from './helper-env.js';

/**
 * What a command under the OS sandbox sees of the filesystem (issue #29, finding 7). The view is
 * narrow by construction rather than the host minus a list: every top-level directory is hidden
 * (an empty tmpfs) except the system directories below, the roots (writable), and the toolchains
 * the command's PATH names (read-only). So other users' homes, the user's own home, /tmp, /var,
 * /opt, /mnt… are simply not there, whatever they hold. Inside what stays visible the denied
 * patterns are applied by name wherever a scan is bounded: the roots, /etc, the PATH directories,
 * homes that live inside a visible directory. /usr and the toolchain homes are package installs
 * (certificate bundles and test fixtures, not a user's keys) and are not scanned: a full scan costs
 * about a second per command.
 */
export interface ViewSettings {
  /** Writable directories: the roots. */
  roots: readonly string[];
  /** Globs (root-relative, like the sandbox's denied patterns) the command may not read or write. */
  deniedPatterns: readonly string[];
  /** Exact files or directories the command may not read or write (toolgate's config and journal). */
  deniedFiles: readonly string[];
  /** The user's home directory (toolchains are exposed from it, nothing else). */
  home: string;
  /** The command's PATH: each directory on it outside the system directories is exposed read-only. */
  searchPath: string;
  /** ripgrep, which lists a root's files far faster than a walk in JavaScript. */
  rgPath: string;
  /** Where /etc and the system directories are; tests point this at a fake tree. Default "/". */
  systemRoot?: string;
  /** The passwd file whose homes are checked where they lie inside the view. Default /etc/passwd. */
  passwdFile?: string;
}

/** The runtime's filesystem settings for one command. */
export interface FilesystemView {
  denyRead: string[];
  allowRead: string[];
  allowWrite: string[];
  denyWrite: string[];
}

/** Read-only system directories: binaries, libraries, configuration. Everything else at / is hidden. */
export const SYSTEM_DIRS: readonly string[] = [
  'usr',
  'bin',
  'sbin',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'etc',
];

/**
 * Toolchain installs in the user's home, shown read-only so `node`, `python`, `cargo` from a version
 * manager still run. None of them is where credentials are kept (unlike `~/.cargo` itself, with its
 * credentials.toml, of which only `bin` is shown).
 */
export const HOME_TOOLCHAINS: readonly string[] = [
  '.nvm',
  '.volta',
  '.fnm',
  '.pyenv',
  '.rbenv',
  '.rustup',
  '.cargo/bin',
  '.local/bin',
  '.bun/bin',
  '.deno/bin',
  'go/bin',
];

/**
 * The denied patterns that name a repository's git internals. Under the OS sandbox these are
 * handled by structure (GIT_READ_ONLY) instead of by hiding: git must read them to run at all.
 */
const GIT_INTERNAL = /(^|\/)\.git(\/|$)/;

/**
 * What in a git directory decides which programs git runs, or which repository it is: readable,
 * never writable from inside the sandbox (config, config.worktree, hooks, info/attributes,
 * objects/info/alternates). `info` and `objects/info` are protected whole, because a stand-in for
 * an absent file is unreadable and git warns about it on every run; a stand-in for an absent
 * directory only makes the files git looks for inside it absent. `commondir` and `gitdir` only
 * where they exist: a stand-in for an absent commondir makes git fail ("failed to read commondir").
 */
const GIT_READ_ONLY = ['config', 'config.worktree', 'hooks', 'info', 'objects/info'];
const GIT_READ_ONLY_IF_PRESENT = ['commondir', 'gitdir'];

/**
 * The view for one command. Throws (so the command fails closed) when a root cannot be listed
 * completely: an unlisted directory is one whose denied files nobody looked for.
 */
export async function sandboxView(settings: ViewSettings): Promise<FilesystemView> {
  const sys = settings.systemRoot ?? '/';
  const secretPatterns = settings.deniedPatterns.filter((p) => !GIT_INTERNAL.test(p));
  const relative = secretPatterns.filter((p) => !p.startsWith('/'));
  const absolute = secretPatterns.filter((p) => p.startsWith('/'));
  const matcher = denyMatcher(relative, false);
  const denied = (p: string) => matcher.test(p) !== undefined;

  const scans = await Promise.all(settings.roots.map((root) => scanRoot(root, denied, settings.rgPath)));
  const systemDirs = SYSTEM_DIRS.map((d) => path.join(sys, d)).filter((d) => existsSync(d));
  const toolchains = toolchainDirs(settings, systemDirs);
  const hidden = [
    ...scans.flatMap((s) => s.hidden),
    ...hiddenInEtc(path.join(sys, 'etc'), denied),
    ...toolchains.flatMap((dir) => listDenied(dir, denied)),
    ...homesInView(settings.passwdFile ?? path.join(sys, 'etc/passwd'), systemDirs, denied),
    ...absolute,
  ];
  const own = [
    ...settings.deniedFiles,
    ...settings.roots.flatMap((r) => [path.join(r, '.toolgate'), path.join(r, 'toolgate.toml')]),
  ];
  return {
    // '/' is expanded by the runtime into every top-level directory the allowRead list does not
    // cover: each becomes an empty tmpfs. /proc and /dev are fresh ones; /sys stays read-only.
    denyRead: ['/', ...hidden, ...own],
    allowRead: [...systemDirs, ...toolchains],
    allowWrite: [...settings.roots],
    denyWrite: [...hidden, ...own, ...scans.flatMap((s) => s.readOnly)],
  };
}

interface RootScan {
  /** Denied files and directories inside the root. */
  hidden: string[];
  /** Git internals inside the root: readable, not writable. */
  readOnly: string[];
}

/** One ripgrep listing of the root; the denied names and every git directory come from it. */
async function scanRoot(root: string, denied: (p: string) => boolean, rgPath: string): Promise<RootScan> {
  const files = await listFiles(root, rgPath);
  const hidden = new Set<string>();
  const gitDirs = new Set<string>();
  const readOnly: string[] = [];
  const dirDenied = new Map<string, boolean>();
  for (const file of files) {
    const rel = path.relative(root, file);
    if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
    // A denied directory (`.ssh/**` also names `.ssh`) is hidden whole: its shallowest match wins.
    const parts = rel.split('/');
    let covered = false;
    for (let i = 1; i < parts.length && !covered; i++) {
      const dir = parts.slice(0, i).join('/');
      let isDenied = dirDenied.get(dir);
      if (isDenied === undefined) {
        isDenied = denied(dir);
        dirDenied.set(dir, isDenied);
        if (isDenied) hidden.add(path.join(root, dir));
      }
      covered = isDenied;
    }
    if (covered) continue;
    if (denied(rel)) hidden.add(file);
    else if (parts.at(-1) === 'HEAD' && parts.slice(0, -1).includes('.git')) gitDirs.add(path.dirname(file));
    else if (parts.at(-1) === '.git') readOnly.push(file); // a `.git` file names the repository git uses
  }
  for (const dir of gitDirs) {
    readOnly.push(...GIT_READ_ONLY.map((name) => path.join(dir, name)));
    for (const name of GIT_READ_ONLY_IF_PRESENT) {
      const p = path.join(dir, name);
      if (existsSync(p)) readOnly.push(p);
    }
  }
  return { hidden: [...hidden], readOnly };
}

function listFiles(root: string, rgPath: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      rgPath,
      ['--files', '--hidden', '--no-ignore', '--no-config', '--no-messages', '--null', root],
      { maxBuffer: 1 << 30, encoding: 'utf8', env: helperEnv() },
      (error, stdout) => {
        // 1 is "no files"; 2 means something could not be read, so its denied files were not looked for.
        const code = (error as { code?: number } | null)?.code;
        if (error && code !== 1) {
          reject(
            new Error(
              `make every directory of the root ${path.basename(root)} readable (or move what cannot be out of it): listing it failed (${error.message.split('\n')[0]}), so its denied files could not be hidden`,
            ),
          );
          return;
        }
        resolve(stdout.split('\0').filter((f) => f !== ''));
      },
    );
  });
}

/**
 * /etc minus its secrets: what matches a denied pattern, and what is not world-readable (shadow,
 * sudoers, ssh host keys, ssl/private). The view a user without privileges would have, also when
 * toolgate runs as root. /etc is small: walked for every command (a few milliseconds).
 */
export function hiddenInEtc(etc: string, denied: (p: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      out.push(dir); // unlistable: hidden whole rather than judged unseen
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      // A link is judged where it leads (in /etc, walked too; in /usr, public package data; or in a
      // hidden directory): /etc/ssl/certs/*.pem are links to the public CA certificates.
      if (entry.isSymbolicLink()) continue;
      // Matched against the absolute path without its leading slash: `**/etc/shadow` names /etc/shadow.
      if (denied(full.slice(1))) {
        out.push(full);
        continue;
      }
      let mode: number;
      try {
        mode = lstatSync(full).mode;
      } catch {
        continue; // gone since the listing
      }
      const worldReadable = entry.isDirectory() ? (mode & 0o5) === 0o5 : (mode & 0o4) !== 0;
      if (!worldReadable) out.push(full);
      else if (entry.isDirectory() && depth < 16) walk(full, depth + 1);
    }
  };
  if (existsSync(etc)) walk(etc, 0);
  return out;
}

/** The directories on PATH outside the system ones, and the home's toolchains, where they exist. */
function toolchainDirs(settings: ViewSettings, systemDirs: readonly string[]): string[] {
  const isSystem = (dir: string) => systemDirs.some((s) => dir === s || dir.startsWith(`${s}/`));
  const fromPath = settings.searchPath
    .split(':')
    // Only a directory named like one that holds programs: a PATH entry such as ~ or /work would
    // otherwise expose a whole home or disk.
    .filter((dir) => path.isAbsolute(dir) && /^(s?bin|shims)$/.test(path.basename(dir)));
  const fromHome = HOME_TOOLCHAINS.map((rel) => path.join(settings.home, rel));
  const out = new Set<string>();
  for (const dir of [...fromPath, ...fromHome]) {
    const normal = path.normalize(dir);
    if (isSystem(normal)) continue;
    try {
      if (statSync(normal).isDirectory()) out.add(normal);
    } catch {
      // absent: nothing to show
    }
  }
  // One mount for a toolchain whose bin directory is on PATH too (~/.pyenv and ~/.pyenv/shims).
  return [...out].filter((dir) => ![...out].some((other) => dir.startsWith(`${other}/`)));
}

/** The entries of one directory that a denied pattern names. */
function listDenied(dir: string, denied: (p: string) => boolean): string[] {
  try {
    return readdirSync(dir)
      .map((name) => path.join(dir, name))
      .filter((p) => denied(p.slice(1)));
  } catch {
    return [];
  }
}

/**
 * Homes (from the passwd file) that lie inside a visible directory: their denied names (`.ssh`,
 * `id_rsa`, `.aws/credentials`…, two levels deep, where such names live) are hidden. Homes
 * anywhere else are inside a hidden directory already.
 */
function homesInView(
  passwdFile: string,
  visible: readonly string[],
  denied: (p: string) => boolean,
): string[] {
  let passwd: string;
  try {
    passwd = readFileSync(passwdFile, 'utf8');
  } catch {
    return [];
  }
  const homes = new Set(
    passwd
      .split('\n')
      .map((line) => line.split(':')[5])
      .filter((home): home is string => !!home && path.isAbsolute(home) && home !== '/')
      .filter((home) => visible.some((v) => home.startsWith(`${v}/`))),
  );
  const out: string[] = [];
  for (const home of homes) {
    for (const entry of listDenied(home, () => true)) {
      if (denied(entry.slice(1))) out.push(entry);
      else out.push(...listDenied(entry, denied));
    }
  }
  return out;
}
