import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { helperEnv } from '../shell/helper-env.js';

export interface RunningRipgrep {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Its exit code once it has closed; rejects when it could not start. */
  exited: Promise<number | null>;
  /** The start of what it wrote to stderr (for error messages). */
  stderr: () => string;
}

/** Starts ripgrep with stdout piped and the first 4,000 characters of stderr kept. */
export function startRipgrep(
  binary: string,
  args: readonly string[],
  options: { cwd: string; stdinFd?: number },
): RunningRipgrep {
  const child = spawn(binary, [...args], {
    cwd: options.cwd,
    env: helperEnv(),
    stdio: [options.stdinFd ?? 'ignore', 'pipe', 'pipe'],
  }) as ChildProcessByStdio<null, Readable, Readable>;
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    if (stderr.length < 4000) stderr += d;
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  exited.catch(() => {}); // awaited by the caller; never an unhandled rejection meanwhile
  return { child, exited, stderr: () => stderr };
}
