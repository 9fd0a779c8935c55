import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { REPO } from '../cli/run-cli.js';
import { liveWith, markerGone } from '../helpers/process-group.js';

/**
 * What the real-host suite needs besides the model server: where the hosts are installed, the
 * README's set-up blocks, and running a host headless with a deadline.
 */

const PINNED = path.join(REPO, 'test/hosts/pinned/package.json');

/** `${TOOLGATE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/toolgate-hosts}`, as install-hosts.sh has it. */
export function hostsDir(): string {
  const cache = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return process.env.TOOLGATE_HOSTS_DIR || path.join(cache, 'toolgate-hosts');
}

/** The pinned host packages: name → exact version. */
export function pinnedHosts(): Record<string, string> {
  return JSON.parse(readFileSync(PINNED, 'utf8')).dependencies;
}

/** Why the pinned hosts are not usable in `dir`, or undefined when they are. */
export function hostsMissing(dir: string): string | undefined {
  for (const [name, version] of Object.entries(pinnedHosts())) {
    const manifest = path.join(dir, 'node_modules', name, 'package.json');
    if (!existsSync(manifest)) return `${name} is not installed`;
    const got = JSON.parse(readFileSync(manifest, 'utf8')).version;
    if (got !== version) return `${name} is ${got}, not the pinned ${version}`;
  }
  for (const bin of ['claude', 'codex', 'gemini']) {
    if (!existsSync(path.join(dir, 'node_modules/.bin', bin))) return `node_modules/.bin/${bin} is missing`;
  }
  return undefined;
}

/** The README's placeholders in set-up blocks, replaced by the test (and by a reader) with real paths. */
export const PLACEHOLDERS = { toolgate: '/path/to/toolgate', project: '/path/to/your/project' } as const;

/** The fenced block that follows `<!-- host-setup: NAME -->` in the README, as written there. */
export function rawReadmeBlock(name: string): string {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const marker = `<!-- host-setup: ${name} -->`;
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no ${marker}`);
  const after = readme.slice(at + marker.length);
  const fence = /^```[a-z]*\n([\s\S]*?)^```$/m.exec(after);
  if (!fence?.[1] || after.slice(0, fence.index).trim() !== '') {
    throw new Error(`README.md: no fenced block right after ${marker}`);
  }
  return fence[1];
}

/** The README's block `name` with its placeholders replaced: this checkout, and `project` when given. */
export function readmeBlock(name: string, project?: string): string {
  const block = rawReadmeBlock(name).replaceAll(PLACEHOLDERS.toolgate, REPO);
  return project === undefined ? block : block.replaceAll(PLACEHOLDERS.project, project);
}

/**
 * The README's `toolgate trust` block, run as written for `project` with only HOME (and PATH): the
 * trust lands in HOME's config directory, where the host's `toolgate mcp` (same HOME) looks.
 */
export function runReadmeTrust(
  project: string,
  home: string,
): { status: number | null; stdout: string; stderr: string } {
  const line = readmeBlock('toolgate-trust', project).trim();
  const parsed = /^node (\S+) trust "([^"]+)"$/.exec(line);
  if (!parsed?.[1] || !parsed[2])
    throw new Error(`README.md: the toolgate-trust block is not \`node BIN trust "DIR"\`: ${line}`);
  const run = spawnSync(process.execPath, [parsed[1], 'trust', parsed[2]], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Writes `content` to `file`, creating its directory. */
export function put(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** A real directory (canonical path). */
export function realDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return realpathSync(dir);
}

export interface HostRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
  /** `toolgate mcp` processes of this project still running 3 s after the host ended (then killed). */
  lingering: number[];
}

/**
 * Runs a host CLI in its own process group with stdin closed and only the environment given (plus
 * PATH), so nothing of this machine's user (API keys, config homes) reaches it. Killed with its group
 * after `timeoutMs`. A `toolgate mcp` of `project` that still runs 3 s after the host ended is
 * killed and reported in `lingering` (toolgate must end when its host closes stdin).
 */
export async function runHost(options: {
  bin: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  project: string;
  timeoutMs: number;
}): Promise<HostRun> {
  const started = performance.now();
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', NO_COLOR: '1', ...options.env };
  const run = await new Promise<HostRun>((resolve, reject) => {
    const child = spawn(options.bin, options.args, {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(); // anything the host left in its group
      const ms = Math.round(performance.now() - started);
      resolve({ code, signal, stdout, stderr, ms, timedOut, lingering: [] });
    });
  });
  const marker = `--root\0${options.project}\0`;
  if (!(await markerGone(marker, 3_000))) {
    run.lingering = liveWith(marker);
    for (const pid of run.lingering) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // it ended meanwhile
      }
    }
  }
  return run;
}

/** The end of a host's output, for failure messages. */
export function tail(text: string, chars = 1_500): string {
  return text.length > chars ? `…${text.slice(-chars)}` : text;
}
