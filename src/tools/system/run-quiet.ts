import { execFile } from 'node:child_process';
import { helperEnv } from '../shell/helper-env.js';

/** Runs a program (no shell) with a timeout and capped output; undefined when it is missing or fails. */
export function runQuiet(
  file: string,
  args: readonly string[],
  options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv; maxBytes?: number } = {},
): Promise<{ stdout: string; code: number } | undefined> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      {
        cwd: options.cwd,
        timeout: options.timeoutMs ?? 10_000,
        env: options.env ?? helperEnv(),
        maxBuffer: options.maxBytes ?? 4 * 1024 * 1024,
        killSignal: 'SIGKILL',
      },
      (error, stdout) => {
        if (error && typeof (error as NodeJS.ErrnoException).code === 'string') return resolve(undefined); // ENOENT etc.
        resolve({ stdout: String(stdout), code: error ? Number((error as { code?: number }).code ?? 1) : 0 });
      },
    );
  });
}
