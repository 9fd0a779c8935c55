import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, readSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { helperEnv } from '../shell/helper-env.js';
import type { PruneLog } from './prune-log.js';
import { unlinkedTextFile } from './unlinked-text-file.js';

export interface RunningRipgrep {
  child: ChildProcess & { stdout: Readable };
  /** Its exit code once it has closed (and its log was read); rejects when it could not start. */
  exited: Promise<number | null>;
  /** The start of what it wrote to stderr (for error messages), its debug log left out. */
  stderr: () => string;
  /** Kills it on toolgate's behalf (the cap, a cancel): an end that leaves the answer cut on purpose. */
  stop: () => void;
  /** It was killed by a signal toolgate did not send (a file-size limit, the OOM killer): its answer is cut. */
  killedElsewhere: () => boolean;
}

/** What of stderr is kept for error messages. */
const MAX_ERROR_CHARS = 4000;
/**
 * The most of a debug log ripgrep may write, in 512-byte blocks (1 MB in dash; bash counts 1 KB
 * blocks): a file-size limit stops it there with SIGXFSZ (node_modules' log is ~100 KB). Its log has a line per entry skipped for any
 * reason (hidden, binary, a link), each written on its own at some µs: on a tree of 100,000 hidden
 * files the log alone took 0.7 s. Past the limit the caller searches another way (grep.ts).
 */
const LOG_LIMIT_BLOCKS = 2048;
/** The most of a debug log read (more than the limit lets it write). */
const MAX_LOG_BYTES = 16 << 20;

/**
 * Starts ripgrep with stdout piped and the first 4,000 characters of stderr kept. With `pruneLog`
 * (the caller passed `--debug`), stderr goes to a private file, read once ripgrep has ended, line
 * by line into the log, its debug lines left out of the error text: through a pipe, each of
 * ripgrep's unbuffered log lines woke this process while the search ran (+20 % on a 2-core grep).
 */
export function startRipgrep(
  binary: string,
  args: readonly string[],
  options: { cwd: string; stdinFd?: number; pruneLog?: PruneLog },
): RunningRipgrep {
  const log = options.pruneLog;
  const logFd = log === undefined ? undefined : unlinkedTextFile('', 'r+');
  let child: RunningRipgrep['child'];
  try {
    // With a log: through sh, for its `ulimit -f` (Node cannot set a child's limits), then exec.
    const [file, argv] =
      log === undefined
        ? [binary, [...args]]
        : ['/bin/sh', ['-c', `ulimit -f ${LOG_LIMIT_BLOCKS} && exec "$0" "$@"`, binary, ...args]];
    child = spawn(file, argv, {
      cwd: options.cwd,
      env: helperEnv(),
      stdio: [options.stdinFd ?? 'ignore', 'pipe', logFd ?? 'pipe'],
    }) as RunningRipgrep['child'];
  } catch (error) {
    if (logFd !== undefined) closeSync(logFd);
    throw error;
  }
  let stderr = '';
  const keep = (text: string) => {
    if (stderr.length < MAX_ERROR_CHARS) stderr += text;
  };
  let stoppedHere = false;
  let killedElsewhere = false;
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', (error) => {
      if (logFd !== undefined) closeSync(logFd);
      reject(error);
    });
    child.once('close', (code, signal) => {
      killedElsewhere = signal !== null && !stoppedHere;
      if (log !== undefined && logFd !== undefined) {
        try {
          readLog(logFd, log, keep, stoppedHere);
          if (killedElsewhere) log.unfinished(signal === 'SIGXFSZ' ? 'too long' : 'cut');
        } finally {
          closeSync(logFd);
        }
      }
      resolve(code);
    });
  });
  exited.catch(() => {}); // awaited by the caller; never an unhandled rejection meanwhile
  const stop = () => {
    stoppedHere = true;
    child.kill('SIGKILL');
  };
  return { child, exited, stderr: () => stderr, stop, killedElsewhere: () => killedElsewhere };
}

/**
 * Feeds the log file's lines to `log`, and its other lines to `keep`. Every log line ends with a
 * line break: a piece after the last one is a log cut short, unless toolgate itself stopped
 * ripgrep (`stopped`, at the cap), when what was written is what counts.
 */
function readLog(fd: number, log: PruneLog, keep: (text: string) => void, stopped: boolean): void {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(1 << 20);
    const n = readSync(fd, chunk, 0, chunk.length, size);
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
    size += n;
    if (size > MAX_LOG_BYTES) {
      log.unfinished('too long');
      return;
    }
  }
  const lines = Buffer.concat(chunks, size).toString('utf8').split('\n');
  const rest = lines.pop() ?? '';
  for (const line of lines) {
    log.feed(line);
    if (!line.startsWith('rg: DEBUG|')) keep(`${line}\n`);
  }
  if (rest !== '' && !stopped) log.unfinished();
}
