import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { REPO } from '../cli/run-cli.js';
import { liveWith, markerGone } from '../helpers/process-group.js';

/**
 * What the real-host suite needs besides the model server: where the hosts are installed, the
 * set-up blocks of the README and docs/GETTING-STARTED.md, and running a host headless with a
 * deadline.
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

/** Every host's command in node_modules/.bin, as install-hosts.sh checks them too. */
export const HOST_BINS = ['claude', 'codex', 'gemini', 'opencode', 'kilo', 'qwen', 'cn', 'copilot'] as const;

/**
 * Where Copilot CLI keeps the package it unpacks from its binary on first run (235 MB):
 * install-hosts.sh unpacks it there once, and every run shares it through COPILOT_CACHE_HOME
 * instead of unpacking it again into each run's fresh HOME.
 */
export function copilotCache(dir = hostsDir()): string {
  return path.join(dir, 'copilot-cache');
}

/** Why the pinned hosts are not usable in `dir`, or undefined when they are. */
export function hostsMissing(dir: string): string | undefined {
  for (const [name, version] of Object.entries(pinnedHosts())) {
    const manifest = path.join(dir, 'node_modules', name, 'package.json');
    if (!existsSync(manifest)) return `${name} is not installed`;
    const got = JSON.parse(readFileSync(manifest, 'utf8')).version;
    if (got !== version) return `${name} is ${got}, not the pinned ${version}`;
  }
  for (const bin of HOST_BINS) {
    if (!existsSync(path.join(dir, 'node_modules/.bin', bin))) return `node_modules/.bin/${bin} is missing`;
  }
  return undefined;
}

/** The placeholders in set-up blocks, replaced by the test (and by a reader) with real paths. */
export const PLACEHOLDERS = { toolgate: '/path/to/toolgate', project: '/path/to/your/project' } as const;

/** The documents that hold tested set-up blocks: the first three hosts' are in the README. */
export const README = 'README.md';
export const GUIDE = 'docs/GETTING-STARTED.md';

/** The fenced block that follows `<!-- host-setup: NAME -->` in `doc`, as written there. */
export function rawReadmeBlock(name: string, doc = README): string {
  const text = readFileSync(path.join(REPO, doc), 'utf8');
  const marker = `<!-- host-setup: ${name} -->`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${doc} has no ${marker}`);
  const after = text.slice(at + marker.length);
  const fence = /^```[a-z]*\n([\s\S]*?)^```$/m.exec(after);
  if (!fence?.[1] || after.slice(0, fence.index).trim() !== '') {
    throw new Error(`${doc}: no fenced block right after ${marker}`);
  }
  return fence[1];
}

/** `doc`'s block `name` with its placeholders replaced: this checkout, and `project` when given. */
export function readmeBlock(name: string, project?: string, doc = README): string {
  const block = rawReadmeBlock(name, doc).replaceAll(PLACEHOLDERS.toolgate, REPO);
  return project === undefined ? block : block.replaceAll(PLACEHOLDERS.project, project);
}

/**
 * A one-line command block of `doc` (`cmd word "quoted words" …`) as its arguments, checked to run
 * `command`: the words after it, quotes removed. Only what the docs' run lines use is understood
 * (double quotes, no variables), so a block that needs more fails here instead of running wrongly.
 */
export function docCommand(name: string, command: string, doc = GUIDE): string[] {
  const line = rawReadmeBlock(name, doc).trim();
  if (line.includes('\n')) throw new Error(`${doc}: the ${name} block is more than one line`);
  const words: string[] = [];
  const word = /\s*(?:"([^"\\$`]*)"|([^\s"'\\$`]+))/y;
  while (word.lastIndex < line.length) {
    const at = word.lastIndex;
    const m = word.exec(line);
    if (!m)
      throw new Error(`${doc}: the ${name} block is not one plain command line (at "${line.slice(at)}")`);
    words.push(m[1] ?? m[2] ?? '');
  }
  if (words[0] !== command) throw new Error(`${doc}: the ${name} block does not run ${command}: ${line}`);
  return words.slice(1);
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
