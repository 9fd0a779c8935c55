import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { PID_NAMESPACE, workerGone } from './process-identity.js';

const SUFFIX = '.jsonl';
/** An own file this big, all of it folded, is replaced by a new one (a file per process grows otherwise). */
const ROTATE_AT = 1 << 20;
/** Bytes read from a file at a time (a fold reads on to the end of each file; a longer line whole). */
const READ_AT_MOST = 8 << 20;

/** The PID namespace a staging file's name records (`owner+random.ns.jsonl`), if any. */
function namespaceOf(name: string): string | undefined {
  const parts = name.slice(name.lastIndexOf('+') + 1, -SUFFIX.length).split('.');
  return parts.length === 2 ? parts[1] : undefined;
}

/** Whether a file's writer is known to be gone: same host and PID namespace as this process, and no longer running. */
export function writerGone(file: StagingFile): boolean {
  return file.ns !== undefined && file.ns === PID_NAMESPACE && workerGone(file.owner, true);
}

/** A staging file of another journal user, as listed. */
export interface StagingFile {
  name: string;
  /** The process that writes it (`host:pid:start`, see process-identity.ts). */
  owner: string;
  size: number;
  /** The PID namespace its writer ran in (the inode of /proc/self/ns/pid), when its name says so. */
  ns: string | undefined;
}

/** Whole lines read from a staging file, each with the offset just past its newline. */
export interface StagedLines {
  lines: { text: string; end: number }[];
  /** The file ends in bytes after its last whole line (a line being written, or one a crash cut short). */
  partial: boolean;
  /** More whole lines may follow than were read this time (READ_AT_MOST). */
  more: boolean;
  /** The file is gone (its owner removed it once everything in it was folded). */
  gone: boolean;
}

/**
 * Read-only batches staged outside SQLite (docs/DURABILITY.md): each process appends one JSON line
 * per batch to a file of its own in `<journal>.staged/`, before the batch's results are handed out.
 * Once write() returns the kernel holds the line, so a process crash loses nothing (a power loss
 * may, as for a commit without fsync); and the reply waits for one write, not a SQLite commit with
 * its locks. The journal folds the lines into batches and calls off the reply's path; readers in
 * any process fold every file first. Where the folder cannot be used safely (not a directory of
 * ours, private), `open` gives undefined and the journal stages in SQLite as before.
 */
export class StagingFiles {
  #fd: number | undefined;
  #name: string | undefined;
  #size = 0;
  /** A write that failed and could not be undone (or a folder not ours): no lines go to a file of this process. */
  #broken: boolean;

  private constructor(
    readonly dir: string,
    private readonly owner: string,
    writable: boolean,
    /** Users whose files here are folded: whoever may have written them for this journal. */
    private readonly trusted: ReadonlySet<number> | undefined,
  ) {
    this.#broken = !writable;
    this.removable = writable;
  }

  /** Whether files here may be removed by this process (a folder it writes in: its own). */
  readonly removable: boolean;

  /**
   * The folder for a journal file; undefined when there is none to use. This process writes its
   * own lines there only when it is the journal's owner's, the folder is its own and nobody else
   * may write in it (it is made 0700 if new). Otherwise the folder is only read (this process then
   * stages in SQLite): a folder someone opened to others (`chmod -R g+rX`) still has lines that
   * were answered, so they are folded (review 13, 1); a user's journal opened by root is read and
   * never given a folder of root's the user could not clean (review 13, 2). Read or written, only
   * files of the folder's owner, the journal's owner, this user or root, writable by nobody else,
   * are folded: a line planted by someone else is never taken for the journal's own (review L2).
   * `uid` is the user this process acts as (its own by default).
   */
  static open(journalFile: string, owner: string, uid = process.getuid?.()): StagingFiles | undefined {
    const dir = StagingFiles.dirFor(journalFile);
    let journalUid: number | undefined;
    try {
      journalUid = statSync(journalFile).uid;
    } catch {
      journalUid = undefined; // not there yet: it is ours when SQLite makes it
    }
    const ours = uid === undefined || journalUid === undefined || journalUid === uid;
    if (ours) {
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
      }
    }
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory()) return undefined; // never a link
      if (uid === undefined) return new StagingFiles(dir, owner, (st.mode & 0o022) === 0, undefined);
      const trusted = new Set([uid, 0, st.uid, ...(journalUid === undefined ? [] : [journalUid])]);
      if (st.uid !== uid && st.uid !== 0 && st.uid !== journalUid) return undefined;
      const writable = ours && st.uid === uid && (st.mode & 0o022) === 0;
      return new StagingFiles(dir, owner, writable, trusted);
    } catch {
      return undefined; // no folder (and not ours to make): nothing staged here to read
    }
  }

  /**
   * Where a journal file's staging files live (toolgate's own state: denied to every tool): beside
   * the file itself, whatever path names it (a symlink, another spelling: review M4).
   */
  static dirFor(journalFile: string): string {
    let real = journalFile;
    try {
      real = realpathSync(journalFile);
    } catch {
      // not there yet: the path as given (it is created there)
    }
    return `${real}.staged`;
  }

  /** This process's file, if it wrote one: its name and how many bytes of whole lines it holds. */
  get own(): { name: string; size: number } | undefined {
    return this.#name === undefined ? undefined : { name: this.#name, size: this.#size };
  }

  /** Appends one line (text ending in a newline); false when it is not staged here (nothing written). */
  append(line: string): boolean {
    if (this.#broken) return false;
    let fd: number;
    try {
      fd = this.#fd ?? this.#create();
    } catch {
      return false;
    }
    const length = Buffer.byteLength(line);
    let written = 0;
    try {
      written = writeSync(fd, line);
    } catch {
      written = -1;
    }
    if (written !== length) {
      // Half a line would run into the next one: cut it off, or stop writing to this file.
      try {
        ftruncateSync(fd, this.#size);
      } catch {
        this.#broken = true;
      }
      return false;
    }
    this.#size += length;
    return true;
  }

  #create(): number {
    const ns = PID_NAMESPACE === undefined ? '' : `.${PID_NAMESPACE}`;
    const name = `${encodeURIComponent(this.owner)}+${randomBytes(6).toString('hex')}${ns}${SUFFIX}`;
    const flags =
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const fd = openSync(path.join(this.dir, name), flags, 0o600);
    this.#fd = fd;
    this.#name = name;
    this.#size = 0;
    return fd;
  }

  /** After a fold of all of it committed: a big own file is removed; the next line starts a new one. */
  rotateIfLarge(): void {
    if (this.#size >= ROTATE_AT) this.removeOwn();
  }

  /** Removes this process's file (all of it folded); the next line starts a new one. */
  removeOwn(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    if (this.#name !== undefined) this.remove(this.#name);
    this.#fd = undefined;
    this.#name = undefined;
    this.#size = 0;
  }

  /** Closes this process's file, leaving it for the next opener to fold (the last fold failed). */
  closeOwn(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** The other staging files here (other processes', or other journals' of this one), with sizes; undefined when the folder cannot be listed. */
  others(): StagingFile[] | undefined {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return undefined;
    }
    const out: StagingFile[] = [];
    for (const name of names) {
      const cut = name.lastIndexOf('+');
      if (name === this.#name || !name.endsWith(SUFFIX) || cut < 0) continue;
      try {
        const st = lstatSync(path.join(this.dir, name));
        if (!st.isFile() || (st.mode & 0o022) !== 0 || (this.trusted && !this.trusted.has(st.uid))) continue;
        out.push({
          name,
          owner: decodeURIComponent(name.slice(0, cut)),
          size: st.size,
          ns: namespaceOf(name),
        });
      } catch {
        // gone meanwhile (folded and removed by its owner), or a name we did not write
      }
    }
    return out;
  }

  /** Whole lines from `from` on (at most READ_AT_MOST bytes of them). */
  read(name: string, from: number): StagedLines {
    let fd: number;
    try {
      fd = openSync(path.join(this.dir, name), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return { lines: [], partial: false, more: false, gone: true };
    }
    try {
      const size = fstatSync(fd).size;
      let window = READ_AT_MOST;
      let buffer: Buffer;
      let got: number;
      for (;;) {
        const length = Math.max(0, Math.min(size - from, window));
        buffer = Buffer.allocUnsafe(length);
        got = 0;
        while (got < length) {
          const n = readSync(fd, buffer, got, length - got, from + got);
          if (n === 0) break;
          got += n;
        }
        // A line longer than the window: read more until one whole line fits (review M3).
        if (from + got >= size || buffer.subarray(0, got).includes(10)) break;
        window *= 2;
      }
      const lines: { text: string; end: number }[] = [];
      let start = 0;
      for (let nl = buffer.indexOf(10, 0); nl !== -1 && nl < got; nl = buffer.indexOf(10, start)) {
        lines.push({ text: buffer.toString('utf8', start, nl), end: from + nl + 1 });
        start = nl + 1;
      }
      const toTheEnd = from + got >= size;
      return { lines, partial: toTheEnd && from + start < size, more: !toTheEnd, gone: false };
    } finally {
      closeSync(fd);
    }
  }

  /** Whether a file is known to be gone (not merely unreadable now). */
  isGone(name: string): boolean {
    try {
      lstatSync(path.join(this.dir, name));
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT';
    }
  }

  remove(name: string): void {
    try {
      unlinkSync(path.join(this.dir, name));
    } catch {
      // already gone
    }
  }
}
