import {
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  openSync,
  readFileSync,
  type Stats,
  statSync,
} from 'node:fs';
import path from 'node:path';

/**
 * toolgate's state (journal, memory, their SQLite side files, `.toolgate/`) that is not this
 * user's own: another user who made it, or who owns the folder holding it, could read every call
 * and output in it and plant rows (grants, answers) or swap the file (issue #30, "State toolgate
 * did not make"). The message says the fix first.
 */
export class ForeignStateError extends Error {
  override name = 'ForeignStateError';
}

/** The user name of a uid, from /etc/passwd (`uid N` when it has none). */
export function userName(uid: number): string {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (name && id === String(uid)) return name;
    }
  } catch {
    // no passwd file (a container without one): the number says it
  }
  return `uid ${uid}`;
}

const thisUid = (): number | undefined => process.getuid?.();

function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function refuse(p: string, uid: number, what: string): never {
  throw new ForeignStateError(
    `remove ${p} (owned by user ${userName(uid)}) or run toolgate as its owner: it is ${what}, and a file or folder of another user there lets that user read every call and output and plant grants or answers`,
  );
}

/** toolgate's own folder under a project's first root. */
export const STATE_DIR = '.toolgate';

/**
 * An existing directory that holds toolgate's state (`.toolgate/`, or the folder of a `--journal`
 * file): it must be a directory (a symbolic link only if this user or root made it, to such a
 * directory) owned by this user, or by root when `rootMayOwn` (`/tmp`, a system folder). Whoever
 * owns it can rename and replace the files in it. A missing one is fine: toolgate makes it.
 * `.toolgate/` itself is this user's only, and made private (0700) if it was not.
 */
export function checkStateDir(dir: string, what: string, rootMayOwn: boolean): void {
  const uid = thisUid();
  if (uid === undefined) return; // no users to tell apart (Windows)
  const link = lstatOrUndefined(dir);
  if (!link) return;
  let st = link;
  if (link.isSymbolicLink()) {
    if (link.uid !== uid && link.uid !== 0)
      refuse(dir, link.uid, `a symbolic link made by another user (${what})`);
    st = statSync(dir);
  }
  if (!st.isDirectory())
    throw new ForeignStateError(
      `remove ${dir} or give toolgate another place: it should be a directory (${what})`,
    );
  const own = path.basename(dir) === STATE_DIR && !link.isSymbolicLink();
  if (st.uid !== uid && !(rootMayOwn && !own && st.uid === 0)) refuse(dir, st.uid, what);
  if (own) {
    // The journal holds file contents: toolgate's own folder is private (a failed chmod throws).
    if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
    return;
  }
  // Anyone may write in it and no sticky bit: they could replace toolgate's files between runs.
  if ((st.mode & 0o002) !== 0 && (st.mode & 0o1000) === 0)
    throw new ForeignStateError(
      `make ${dir} writable by you only (chmod o-w, or chmod +t), or give toolgate another place: anyone may replace toolgate's files in it (${what})`,
    );
}

/**
 * A state file, if it exists, must be a plain file of this user's. `linkOk`: the path may be a
 * symbolic link this user made (`--journal link.db`), to a plain file of this user's; SQLite's side
 * files (-wal, -shm, -journal) never are.
 */
export function checkStateFile(file: string, what: string, linkOk: boolean): void {
  const uid = thisUid();
  if (uid === undefined) return;
  const link = lstatOrUndefined(file);
  if (!link) return;
  let st = link;
  if (link.isSymbolicLink()) {
    if (!linkOk || link.uid !== uid)
      refuse(
        file,
        link.uid,
        `a symbolic link${linkOk ? ' made by another user' : ''} where toolgate keeps ${what}`,
      );
    st = statSync(file);
  }
  if (st.isDirectory())
    throw new ForeignStateError(
      `name a file, not the folder ${file}, for ${what} (e.g. ${path.join(file, 'journal.db')})`,
    );
  if (!st.isFile())
    throw new ForeignStateError(`give toolgate another place for ${what}: ${file} is not a plain file`);
  if (st.uid !== uid) refuse(file, st.uid, what);
}

/** SQLite's side files of a database: written by whoever opens it, read as part of it. */
export const SQLITE_SIDE_FILES = ['-wal', '-shm', '-journal'] as const;

/**
 * Before SQLite opens `file` (toolgate's journal, the memory store): its folder, the file and its
 * side files are this user's (checkStateDir, checkStateFile); a new file is created 0600 (never
 * through a link), and an existing one looser than that is tightened. A chmod that fails stops
 * everything: the file would stay readable by others.
 */
export function prepareOwnDatabase(file: string, what: string): void {
  const dir = path.dirname(file);
  checkStateDir(
    dir,
    path.basename(dir) === STATE_DIR ? "toolgate's own folder" : `the folder holding ${what}`,
    true,
  );
  checkStateFile(file, what, true);
  for (const side of SQLITE_SIDE_FILES)
    checkStateFile(`${file}${side}`, `${what}'s ${side.slice(1)} file`, false);
  // Created, never opened if it exists: closing any descriptor of a file drops every POSIX lock
  // this process holds on it, those of a connection another journal here has open included.
  try {
    closeSync(
      openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // Made here or checked above, the file is ours; looked at once more (a race with its folder's owner).
  checkStateFile(file, what, true);
}

/**
 * After SQLite opened `file` and found toolgate's schema in it: the file and its side files are
 * made readable by this user only. Not before: an existing file that is not toolgate's database
 * (`--journal /etc/passwd`, a mistyped name) is left exactly as it was (hostile review of issue
 * #31: its mode was tightened before SQLite found it was no database). Never by reading the file:
 * closing any descriptor of it would drop the SQLite locks this process holds on it.
 */
export function tightenOwnDatabase(file: string): void {
  for (const f of [file, ...SQLITE_SIDE_FILES.map((s) => `${file}${s}`)]) {
    let mode: number;
    try {
      mode = statSync(f).mode;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) chmodSync(f, mode & 0o700);
  }
}
