import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import {
  type HostRun,
  hostsDir,
  hostsMissing,
  pinnedHosts,
  put,
  readmeBlock,
  realDir,
  runHost,
  runReadmeTrust,
  tail,
} from './hosts.js';
import { type Exchange, type OfferedTool, startModelServer } from './model-server.js';

/**
 * issue #14 item 2: the real MCP hosts (Claude Code, Codex, gemini-cli, pinned in
 * test/hosts/pinned, installed outside the repository by test/hosts/install-hosts.sh) run headless
 * with the real `toolgate mcp` (dist/ through bin/toolgate.js) as their MCP server, configured with
 * the README's own set-up blocks, against a scripted model server in each host's wire format. Each
 * run has its own HOME and project of real files. What the host sent to the model is checked:
 * toolgate's tools offered (names and parameters as toolgate declares them, plus only the arguments
 * a host is known to add); the read's file content in the next request; a write without
 * `toolgate.toml` denied with the allowlist line in what the model receives, nothing on disk; with
 * the README's allowlist (or Claude Code's Elicitation hook) the file written.
 *
 * Where the hosts are not installed (a user's clone) one test says so and passes, unless CI=true
 * (or TOOLGATE_HOSTS_REQUIRED=1), where that is a failure: .ci/run installs them first.
 */

const DIR = hostsDir();
const missing = hostsMissing(DIR);
const required =
  process.env.TOOLGATE_HOSTS_REQUIRED !== undefined
    ? process.env.TOOLGATE_HOSTS_REQUIRED === '1'
    : process.env.CI === 'true';

const PROMPT = 'Read notes.txt, then write out.txt';
/** A host run is killed after this, so each host's three runs end within 60 s (they take 1 to 3 s). */
const RUN_DEADLINE_MS = 20_000;
const TEST_TIMEOUT_MS = 30_000;

interface Outcome {
  run: HostRun;
  exchanges: Exchange[];
  project: string;
  notes: string;
  written: string;
  /** out.txt as the run left it, if it exists. */
  outTxt: string | undefined;
}

interface HostSetup {
  bin: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * One headless host run in a fresh HOME and project: `notes.txt` with a unique line, the README's
 * allowlist as `toolgate.toml` when `allow`, trusted with the README's `toolgate trust` line, then
 * `setup` writes the host's own configuration.
 */
async function runScenario(options: {
  allow: boolean;
  extraArgs?: Record<string, unknown>;
  setup: (dirs: { home: string; project: string; modelUrl: string }) => HostSetup;
}): Promise<Outcome> {
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

/** What went to and came from the model, and the host's own output: the message of a failed check. */
function explain(o: Outcome): string {
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
 * The tool results the model received. gemini-cli hands a failed MCP call to the model as its
 * result's JSON inside an error message, quotes escaped: read them unescaped.
 */
const results = (o: Outcome) =>
  o.exchanges.flatMap((e) =>
    e.conversation.flatMap((c) => (c.kind === 'result' ? [c.text.replaceAll('\\"', '"')] : [])),
  );

/** toolgate's own tools: name → parameter names, from the built CLI. */
let ownTools: Map<string, string[]>;

/**
 * Every toolgate tool offered, with toolgate's parameters plus exactly `hostAdds`; nothing else of
 * toolgate's. `hostHides`: tools the host itself leaves out (named in the README).
 */
function expectToolsListed(o: Outcome, hostAdds: string[] = [], hostHides: string[] = []): void {
  const asked = o.exchanges.find((e) => e.tools.some((t) => t.toolgate));
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

function expectWriteDenied(o: Outcome): void {
  expect(o.outTxt, 'out.txt was written without approval').toBeUndefined();
  const hint = `add "write_file" to [tools.approval] allowlist in`;
  const denial = results(o).find((t) => t.includes(hint));
  expect(denial, `no denial with the allowlist hint reached the model\n${explain(o)}`).toBeDefined();
  expect(denial).toContain('write_file failed: denied');
  // Named for the model without a path of this machine (issue #31 §1).
  expect(denial).toContain('create toolgate.toml in the workspace root');
  expect(denial).not.toContain(o.project);
}

function expectWritten(o: Outcome): void {
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
function expectRunCompleted(o: Outcome, hostAdds: string[] = [], hostHides: string[] = []): void {
  expectCleanExit(o);
  expectToolsListed(o, hostAdds, hostHides);
  expectReadReachedModel(o);
}

const bin = (name: string) => path.join(DIR, 'node_modules/.bin', name);

/**
 * gemini-cli leaves an MCP tool named write_todos out of what its model is offered (its policy
 * engine excludes the name, which its own todo tool has); the README says so.
 */
const GEMINI_HIDES = ['write_todos'];

// ---- the hosts ---------------------------------------------------------------------------------

function claude(hook = false) {
  return ({ home, project, modelUrl }: { home: string; project: string; modelUrl: string }): HostSetup => {
    put(path.join(project, '.mcp.json'), readmeBlock('claude-code-mcp-json', project));
    if (hook)
      put(path.join(home, '.claude/settings.json'), readmeBlock('claude-code-elicitation-hook', project));
    return {
      bin: bin('claude'),
      args: ['-p', PROMPT, '--allowedTools', 'mcp__toolgate', '--model', 'claude-sonnet-4-5'].concat([
        '--output-format',
        'stream-json',
        '--verbose',
      ]),
      env: {
        ANTHROPIC_BASE_URL: modelUrl,
        ANTHROPIC_API_KEY: 'scripted',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        // the scripted model calls the tools it is offered; tool search would hide them behind a search
        ENABLE_TOOL_SEARCH: 'false',
      },
    };
  };
}

function codex(block: 'codex' | 'codex-optional') {
  return ({ home, project, modelUrl }: { home: string; project: string; modelUrl: string }): HostSetup => {
    const codexHome = path.join(home, '.codex');
    const config = [
      'model = "gpt-5.1-codex"',
      'model_provider = "scripted"',
      '',
      readmeBlock(block, project),
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${modelUrl}/v1"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_API_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n');
    put(path.join(codexHome, 'config.toml'), config);
    return {
      bin: bin('codex'),
      args: ['exec', '--json', '--skip-git-repo-check', '-C', project, PROMPT],
      env: { CODEX_HOME: codexHome, SCRIPTED_API_KEY: 'scripted' },
    };
  };
}

function gemini({ home, project, modelUrl }: { home: string; project: string; modelUrl: string }): HostSetup {
  put(path.join(home, '.gemini/settings.json'), readmeBlock('gemini-cli', project));
  return {
    bin: bin('gemini'),
    args: ['-p', PROMPT, '-m', 'gemini-2.5-flash', '--output-format', 'stream-json'].concat([
      '--approval-mode',
      'auto_edit',
      '--skip-trust',
    ]),
    env: { GOOGLE_GEMINI_BASE_URL: modelUrl, GEMINI_API_KEY: 'scripted' },
  };
}

// ---- the suite ---------------------------------------------------------------------------------

if (missing) {
  describe('real hosts', () => {
    it('are installed, or the suite says it did not run', () => {
      const message = `real-host suite not run: hosts not installed in ${DIR} (${missing}); run test/hosts/install-hosts.sh`;
      console.warn(message);
      if (required) throw new Error(`${message}. CI=true (or TOOLGATE_HOSTS_REQUIRED=1) requires them`);
      expect(missing).toBeTruthy();
    });
  });
} else {
  const timings: string[] = [];
  const timed = async (label: string, run: () => Promise<Outcome>) => {
    const o = await run();
    timings.push(`${label} ${(o.run.ms / 1000).toFixed(1)} s`);
    return o;
  };

  beforeAll(() => {
    const empty = realDir(mkdtempSync(path.join(tmpdir(), 'toolgate-host-tools-')));
    const listed = runCli(['tools', '--json', '--root', empty]);
    rmSync(empty, { recursive: true, force: true });
    expect(listed.status, listed.stderr).toBe(0);
    const tools = JSON.parse(listed.stdout) as { name: string; inputSchema: { properties?: object } }[];
    ownTools = new Map(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})]));
    expect(ownTools.get('read_file')).toContain('path');
  });

  afterAll(() => {
    console.log(
      `real hosts (${Object.entries(pinnedHosts())
        .map(([n, v]) => `${n}@${v}`)
        .join(', ')}): ${timings.join('; ')}`,
    );
  });

  describe('Claude Code (Anthropic Messages)', () => {
    it(
      'without toolgate.toml: tools listed, the read reaches the model, the write is denied with the allowlist line',
      async () => {
        const o = await timed('claude default', () => runScenario({ allow: false, setup: claude() }));
        expectRunCompleted(o);
        expectWriteDenied(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "with the README's allowlist: the file is written",
      async () => {
        const o = await timed('claude allow', () => runScenario({ allow: true, setup: claude() }));
        expectRunCompleted(o);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "without toolgate.toml, the README's Elicitation hook approves: the file is written",
      async () => {
        const o = await timed('claude hook', () => runScenario({ allow: false, setup: claude(true) }));
        expectRunCompleted(o);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );
  });

  describe('Codex (OpenAI Responses)', () => {
    it(
      'required = true, without toolgate.toml: tools listed, the read reaches the model, the write is denied with the allowlist line',
      async () => {
        const o = await timed('codex default', () => runScenario({ allow: false, setup: codex('codex') }));
        expectRunCompleted(o);
        expectWriteDenied(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "required = true, with the README's allowlist: the file is written",
      async () => {
        const o = await timed('codex allow', () => runScenario({ allow: true, setup: codex('codex') }));
        expectRunCompleted(o);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'optional (no required = true; mcp_optional_startup_grace_ms = 0), with the allowlist: the file is written',
      async () => {
        const o = await timed('codex optional', () =>
          runScenario({ allow: true, setup: codex('codex-optional') }),
        );
        expectRunCompleted(o);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );
  });

  describe('gemini-cli (Gemini)', () => {
    it(
      'without toolgate.toml: tools listed (plus its wait_for_previous), the read reaches the model, the write is denied with the allowlist line',
      async () => {
        const o = await timed('gemini default', () => runScenario({ allow: false, setup: gemini }));
        expectRunCompleted(o, ['wait_for_previous'], GEMINI_HIDES);
        expectWriteDenied(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "with the README's allowlist: the file is written",
      async () => {
        const o = await timed('gemini allow', () => runScenario({ allow: true, setup: gemini }));
        expectRunCompleted(o, ['wait_for_previous'], GEMINI_HIDES);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "with the README's allowlist, the model filling in wait_for_previous: both calls run, the file is written",
      async () => {
        const o = await timed('gemini allow + wait_for_previous', () =>
          runScenario({ allow: true, extraArgs: { wait_for_previous: true }, setup: gemini }),
        );
        expectRunCompleted(o, ['wait_for_previous'], GEMINI_HIDES);
        const calls = o.exchanges.flatMap((e) => (e.reply && 'tool' in e.reply ? [e.reply] : []));
        expect(calls.map((c) => c.args.wait_for_previous)).toEqual([true, true]);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );
  });
}
