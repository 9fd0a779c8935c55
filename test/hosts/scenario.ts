import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import {
  type HostRun,
  hostsDir,
  hostsMissing,
  put,
  readmeBlock,
  realDir,
  runHost,
  runReadmeTrust,
  tail,
} from './hosts.js';
import { type Exchange, type OfferedTool, startModelServer } from './model-server.js';

/**
 * One real-host scenario and what is checked of it, shared by the suite's files: a host runs
 * headless in a fresh HOME and project of real files, with the real `toolgate mcp` (dist/ through
 * bin/toolgate.js) as its MCP server, against the scripted model server. What the host sent to the
 * model is checked: toolgate's tools offered (names and parameters as toolgate declares them, plus
 * only the arguments a host is known to add); the read's file content in the next request; a write
 * without `toolgate.toml` denied with the allowlist line in what the model receives, nothing on
 * disk; with the allowlist the file written.
 */

export const DIR = hostsDir();
const missing = hostsMissing(DIR);
const required =
  process.env.TOOLGATE_HOSTS_REQUIRED !== undefined
    ? process.env.TOOLGATE_HOSTS_REQUIRED === '1'
    : process.env.CI === 'true';

/** What the docs' examples ask every host. */
export const PROMPT = 'Read notes.txt, then write out.txt';
/**
 * A host run is killed after this. Runs take 1 to 12 s (Kilo CLI needs ~7 s to start); the margin
 * is for a loaded 2-core machine, and only a hung host ever waits it out.
 */
const RUN_DEADLINE_MS = 60_000;
export const TEST_TIMEOUT_MS = 90_000;

export interface Outcome {
  run: HostRun;
  exchanges: Exchange[];
  project: string;
  notes: string;
  written: string;
  /** out.txt as the run left it, if it exists. */
  outTxt: string | undefined;
}

export interface HostSetup {
  bin: string;
  args: string[];
  env: Record<string, string>;
}

export interface Dirs {
  home: string;
  project: string;
  /** `http://127.0.0.1:PORT` */
  modelUrl: string;
}

export interface ScenarioOptions {
  allow: boolean;
  extraArgs?: Record<string, unknown>;
  /** The host offers toolgate's tools under their own names (Continue): see ScriptOptions. */
  unprefixed?: boolean;
  setup: (dirs: Dirs) => HostSetup;
}

/**
 * One headless host run in a fresh HOME and project: `notes.txt` with a unique line, the README's
 * allowlist as `toolgate.toml` when `allow`, trusted with the README's `toolgate trust` line, then
 * `setup` writes the host's own configuration.
 */
async function runScenario(options: ScenarioOptions): Promise<Outcome> {
  const base = realDir(mkdtempSync(path.join(tmpdir(), 'toolgate-host-')));
  try {
    const home = realDir(path.join(base, 'home'));
    const project = realDir(path.join(base, 'project'));
    const notes = `notes for the real-host suite ${randomUUID()}\n`;
    const written = `written through the host ${randomUUID()}\n`;
    put(path.join(project, 'notes.txt'), notes);
    if (options.allow) {
      put(path.join(project, 'toolgate.toml'), readmeBlock('toolgate-allowlist'));
      // As the README says: the project's own file applies in full once trusted (issue #29 §6).
      const trusted = runReadmeTrust(project, home);
      if (trusted.status !== 0) throw new Error(`toolgate trust failed: ${trusted.stderr}`);
    }
    const server = await startModelServer({
      readPath: 'notes.txt',
      writePath: 'out.txt',
      writeContent: written,
      ...(options.extraArgs ? { extraArgs: options.extraArgs } : {}),
      ...(options.unprefixed ? { unprefixed: [...toolgateTools().keys()] } : {}),
    });
    try {
      const host = options.setup({ home, project, modelUrl: server.url });
      const run = await runHost({
        bin: host.bin,
        args: host.args,
        cwd: project,
        env: { HOME: home, TMPDIR: realDir(path.join(base, 'tmp')), ...host.env },
        project,
        timeoutMs: RUN_DEADLINE_MS,
      });
      const out = path.join(project, 'out.txt');
      const outTxt = existsSync(out) ? readFileSync(out, 'utf8') : undefined;
      return { run, exchanges: [...server.exchanges], project, notes, written, outTxt };
    } finally {
      await server.close();
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * Registers a file's host tests through `register`, which gets a runner that also records each
 * run's time for the file's closing line. Where the hosts are not installed (a user's clone) one
 * test says so and passes instead, unless CI=true (or TOOLGATE_HOSTS_REQUIRED=1), where that is a
 * failure: .ci/run installs them first.
 */
export function realHostSuite(
  name: string,
  register: (run: (label: string, options: ScenarioOptions) => Promise<Outcome>) => void,
): void {
  if (missing) {
    describe(name, () => {
      it('are installed, or the suite says it did not run', () => {
        const message = `real-host suite not run: hosts not installed in ${DIR} (${missing}); run test/hosts/install-hosts.sh`;
        console.warn(message);
        if (required) throw new Error(`${message}. CI=true (or TOOLGATE_HOSTS_REQUIRED=1) requires them`);
        expect(missing).toBeTruthy();
      });
    });
    return;
  }
  const timings: string[] = [];
  afterAll(() => console.log(`${name}: ${timings.join('; ')}`));
  register(async (label, options) => {
    const o = await runScenario(options);
    timings.push(`${label} ${(o.run.ms / 1000).toFixed(1)} s`);
    return o;
  });
}

/** A host's command as installed. */
export const bin = (name: string) => path.join(DIR, 'node_modules/.bin', name);

/** What went to and came from the model, and the host's own output: the message of a failed check. */
export function explain(o: Outcome): string {
  const lines = o.exchanges.map((e) => {
    const tg = e.tools.filter((t) => t.toolgate).length;
    const reply = e.reply ? JSON.stringify(e.reply).slice(0, 160) : '-';
    return `  ${e.method} ${e.url} [${e.format}, ${e.tools.length} tools, ${tg} toolgate] → ${reply}`;
  });
  const how = o.run.timedOut ? `killed after ${RUN_DEADLINE_MS} ms` : `exit ${o.run.code ?? o.run.signal}`;
  return [
    `host ${how} in ${o.run.ms} ms; ${o.exchanges.length} model requests:`,
    ...lines,
    `stderr: ${tail(o.run.stderr)}`,
    `stdout: ${tail(o.run.stdout)}`,
  ].join('\n');
}

/**
 * The tool results the model received. gemini-cli and qwen-code hand a failed MCP call to the model
 * as its result's JSON inside an error message, and Continue every result as the JSON of its
 * content, quotes escaped: read them unescaped.
 */
export const results = (o: Outcome) =>
  o.exchanges.flatMap((e) =>
    e.conversation.flatMap((c) => (c.kind === 'result' ? [c.text.replaceAll('\\"', '"')] : [])),
  );

/** toolgate's own tools: name → parameter names, from the built CLI (once per test file). */
let own: Map<string, string[]> | undefined;
export function toolgateTools(): Map<string, string[]> {
  if (own) return own;
  const empty = realDir(mkdtempSync(path.join(tmpdir(), 'toolgate-host-tools-')));
  const listed = runCli(['tools', '--json', '--root', empty]);
  rmSync(empty, { recursive: true, force: true });
  if (listed.status !== 0) throw new Error(`toolgate tools --json failed: ${listed.stderr}`);
  const tools = JSON.parse(listed.stdout) as { name: string; inputSchema: { properties?: object } }[];
  own = new Map(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})]));
  if (!own.get('read_file')?.includes('path'))
    throw new Error('toolgate tools --json lists no read_file(path)');
  return own;
}

/**
 * Every toolgate tool offered, with toolgate's parameters plus exactly `hostAdds`; nothing else of
 * toolgate's. `hostHides`: tools the host itself leaves out (named in the docs). Deferred tools
 * (qwen-code) count once the model has seen their schemas through the host's tool search.
 */
function expectToolsListed(o: Outcome, hostAdds: string[] = [], hostHides: string[] = []): void {
  const ownTools = toolgateTools();
  const asked = o.exchanges.find((e) => {
    const toolgate = e.tools.filter((t) => t.toolgate);
    return toolgate.length > 0 && toolgate.every((t) => !t.deferred || t.reviewed);
  });
  expect(asked, `toolgate's tools never reached the model\n${explain(o)}`).toBeDefined();
  const offered = new Map(
    (asked?.tools ?? []).flatMap((t: OfferedTool) => (t.toolgate ? [[t.toolgate, t] as const] : [])),
  );
  const expected = [...ownTools.keys()].filter((n) => !hostHides.includes(n));
  expect([...offered.keys()].sort()).toEqual(expected.sort());
  for (const name of hostHides) expect(ownTools.has(name), `${name} is one of toolgate's tools`).toBe(true);
  for (const [name, props] of ownTools) {
    if (hostHides.includes(name)) continue;
    const got = [...(offered.get(name)?.properties ?? [])].sort();
    expect(got, `parameters of ${name} as the model saw them`).toEqual([...props, ...hostAdds].sort());
  }
}

function expectReadReachedModel(o: Outcome): void {
  const readAt = o.exchanges.findIndex(
    (e) => e.reply && 'tool' in e.reply && e.reply.toolgate === 'read_file',
  );
  expect(readAt, `the model never called read_file\n${explain(o)}`).toBeGreaterThanOrEqual(0);
  const later = o.exchanges.slice(readAt + 1).flatMap((e) => e.conversation);
  const token = o.notes.trim();
  expect(
    later.some((c) => c.kind === 'result' && c.text.includes(token)),
    `the content of notes.txt never reached the model\n${explain(o)}`,
  ).toBe(true);
}

export function expectWriteDenied(o: Outcome): void {
  expect(o.outTxt, 'out.txt was written without approval').toBeUndefined();
  const hint = `add "write_file" to [tools.approval] allowlist in`;
  const denial = results(o).find((t) => t.includes(hint));
  expect(denial, `no denial with the allowlist hint reached the model\n${explain(o)}`).toBeDefined();
  expect(denial).toContain('write_file failed: denied');
  // Named for the model without a path of this machine (issue #31 §1).
  expect(denial).toContain('create toolgate.toml in the workspace root');
  expect(denial).not.toContain(o.project);
}

export function expectWritten(o: Outcome): void {
  expect(o.outTxt, `out.txt was not written\n${explain(o)}`).toBe(o.written);
  expect(results(o).some((t) => t.includes(`created: out.txt (${Buffer.byteLength(o.written)} bytes)`))).toBe(
    true,
  );
}

function expectCleanExit(o: Outcome): void {
  expect(o.run.timedOut, `the host did not finish in ${RUN_DEADLINE_MS} ms\n${explain(o)}`).toBe(false);
  expect(o.run.code, `the host failed\n${explain(o)}`).toBe(0);
  expect(o.run.lingering, 'toolgate mcp still ran 3 s after its host ended').toEqual([]);
}

/** Every run: the host ended on its own, the model was offered toolgate's tools, the read reached it. */
export function expectRunCompleted(o: Outcome, hostAdds: string[] = [], hostHides: string[] = []): void {
  expectCleanExit(o);
  expectToolsListed(o, hostAdds, hostHides);
  expectReadReachedModel(o);
}
