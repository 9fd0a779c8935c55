import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { REPO } from '../cli/run-cli.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
const started: ChildProcess[] = [];

/**
 * Starts `toolgate mcp [args] --http LISTEN` (dist/, a real child process) in `root` and resolves
 * with the URL it prints. Stop them all with `killMcpHttpServers()` (in an afterEach).
 */
export function startMcpHttp(
  root: string,
  listen: string,
  options: { env?: NodeJS.ProcessEnv; args?: string[] } = {},
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, 'mcp', ...(options.args ?? []), '--http', listen], {
    cwd: root,
    env: { ...process.env, ...options.env },
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
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

export function killMcpHttpServers(): void {
  for (const c of started.splice(0)) c.kill('SIGKILL');
}
