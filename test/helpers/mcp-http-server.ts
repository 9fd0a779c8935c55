import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { configHomeFor, REPO } from '../cli/run-cli.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
const started: ChildProcess[] = [];

/**
 * Starts `toolgate mcp [args] --http LISTEN` (dist/, a real child process) in `root` and resolves
 * with the URL it prints; `wrap` runs it under another command (e.g. strace). Stop them all with
 * `killMcpHttpServers()` (in an afterEach).
 */
export function startMcpHttp(
  root: string,
  listen: string,
  options: { env?: NodeJS.ProcessEnv; args?: string[]; wrap?: string[] } = {},
): Promise<{ url: string; child: ChildProcess }> {
  const command = [
    ...(options.wrap ?? []),
    process.execPath,
    BIN,
    'mcp',
    ...(options.args ?? []),
    '--http',
    listen,
  ];
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: root,
    env: {
      ...process.env,
      ...options.env,
      XDG_CONFIG_HOME: configHomeFor(options.env as Record<string, string>),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.push(child);
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
      const m = /(http:\/\/\S+\/mcp)/.exec(err);
      if (m?.[1]) resolve({ url: m[1], child });
    });
    child.once('error', reject); // e.g. a wrapper that is not installed
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

export function killMcpHttpServers(): void {
  for (const c of started.splice(0)) {
    // A wrapper's own children (the server under strace) go first: killing the wrapper leaves them running.
    for (const pid of childrenOf(c.pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    c.kill('SIGKILL');
  }
}

function childrenOf(pid: number | undefined): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return []; // gone already, or no /proc
  }
}
