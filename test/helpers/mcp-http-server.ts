import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { configHomeFor, REPO } from '../cli/run-cli.js';
import { makeTempDir } from './workspace.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
const started: ChildProcess[] = [];
const stateDirs: string[] = [];

/** A started server: its URL, and the bearer token a client of its owner sends. */
export interface McpHttpServer {
  url: string;
  child: ChildProcess;
  /** TOOLGATE_MCP_TOKEN when given, else the one it generated (undefined with per-user tokens only). */
  token: string | undefined;
  /** `{ authorization: 'Bearer …' }` for the SDK client's requestInit.headers (empty without a token). */
  headers: Record<string, string>;
  /** Where a generated token is kept (a fresh XDG_STATE_HOME per server unless env names one). */
  tokenFile: string;
  /** Everything it has written to stderr so far. */
  stderr: () => string;
}

/**
 * Starts `toolgate mcp [args] --http LISTEN` (dist/, a real child process) in `root` and resolves
 * with the URL it prints and the token to send; `wrap` runs it under another command (e.g.
 * strace). Stop them all with `killMcpHttpServers()` (in an afterEach).
 */
export function startMcpHttp(
  root: string,
  listen: string,
  options: { env?: NodeJS.ProcessEnv; args?: string[]; wrap?: string[] } = {},
): Promise<McpHttpServer> {
  const state = options.env?.XDG_STATE_HOME ?? makeTempDir('toolgate-state-');
  if (state !== options.env?.XDG_STATE_HOME) stateDirs.push(state);
  const tokenFile = path.join(state, 'toolgate', 'mcp-token');
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
      XDG_STATE_HOME: state,
      XDG_CONFIG_HOME: configHomeFor(options.env as Record<string, string>),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.push(child);
  return new Promise((resolve, reject) => {
    let err = '';
    let found = false;
    child.stderr?.on('data', (d) => {
      err += d;
      const m = /(http:\/\/\S+\/mcp)/.exec(err);
      if (m?.[1] && !found) {
        found = true;
        // The file is written before the URL is printed.
        const token =
          options.env?.TOOLGATE_MCP_TOKEN ||
          (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined);
        const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
        resolve({ url: m[1], child, token, headers, tokenFile, stderr: () => err });
      }
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
  for (const dir of stateDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

function childrenOf(pid: number | undefined): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return []; // gone already, or no /proc
  }
}
