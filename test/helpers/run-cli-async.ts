import { spawn } from 'node:child_process';
import path from 'node:path';
import { configHomeFor, REPO } from '../cli/run-cli.js';

export interface AsyncCliRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real CLI without blocking this process (the replay server lives here), with stdin
 * closed. `onStart` gets the child, e.g. to kill it at a chosen moment.
 */
export function runCliAsync(
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string>;
    /** Written to stdin, which is then closed (without it stdin is closed from the start). */
    input?: string;
    onStart?: (child: ReturnType<typeof spawn>) => void;
  } = {},
): Promise<AsyncCliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO, 'bin', 'toolgate.js'), ...args], {
      cwd: options.cwd ?? REPO,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', ...options.env, XDG_CONFIG_HOME: configHomeFor(options.env) },
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
    options.onStart?.(child);
  });
}

/** The flags that point `toolgate run` / `chat` at a replay server as an OpenAI-compatible model. */
export function replayModelArgs(serverUrl: string, kind = 'openai-compatible', model = 'm'): string[] {
  return ['--provider', kind, '--base-url', `${serverUrl}/v1`, '--model', model];
}
