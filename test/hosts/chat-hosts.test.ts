import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copilotCache, docCommand, GUIDE, put, readmeBlock } from './hosts.js';
import { CHAT_MODEL } from './model-server.js';
import {
  bin,
  type Dirs,
  expectRunCompleted,
  expectWriteDenied,
  expectWritten,
  type HostSetup,
  type Outcome,
  realHostSuite,
  type ScenarioOptions,
  TEST_TIMEOUT_MS,
  toolgateTools,
} from './scenario.js';

/**
 * issue #31 §1: five more real MCP hosts — opencode, Kilo CLI, qwen-code, Continue (`cn`) and
 * GitHub Copilot CLI (offline, bring-your-own-key) — each run headless with the real `toolgate mcp`
 * configured by the set-up blocks of docs/GETTING-STARTED.md as written there (its config block and
 * its run line), against the scripted model server speaking OpenAI Chat Completions. What is
 * checked is scenario.ts's: toolgate's tools offered, the read's content in the next request, the
 * write denied with the allowlist line without `toolgate.toml`, and written with it.
 *
 * What the test adds to the docs' blocks is only the model provider (pointing at the scripted
 * server), output as JSON, and switches that keep a host off the network; the guide's "How this
 * guide was tested" lists them.
 */

const block = (name: string, project: string) => readmeBlock(name, project, GUIDE);

/** opencode's and Kilo CLI's provider for the scripted model, in a file of its own (`*_CONFIG`). */
function scriptedProvider(home: string, modelUrl: string): string {
  const file = path.join(home, 'scripted-provider.json');
  const provider = {
    npm: '@ai-sdk/openai-compatible', // bundled with both
    name: 'Scripted',
    options: { baseURL: `${modelUrl}/v1`, apiKey: 'scripted' },
    models: { [CHAT_MODEL]: { name: 'Scripted model', tool_call: true } },
  };
  put(file, JSON.stringify({ model: `scripted/${CHAT_MODEL}`, provider: { scripted: provider } }));
  return file;
}

function opencode({ home, project, modelUrl }: Dirs): HostSetup {
  put(path.join(home, '.config/opencode/opencode.json'), block('opencode', project));
  return {
    bin: bin('opencode'),
    args: [
      ...docCommand('opencode-run', 'opencode'),
      '--model',
      `scripted/${CHAT_MODEL}`,
      '--format',
      'json',
    ],
    env: {
      OPENCODE_CONFIG: scriptedProvider(home, modelUrl),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    },
  };
}

function kilo({ home, project, modelUrl }: Dirs): HostSetup {
  put(path.join(home, '.config/kilo/kilo.json'), block('kilo', project));
  return {
    bin: bin('kilo'),
    args: [...docCommand('kilo-run', 'kilo'), '--model', `scripted/${CHAT_MODEL}`, '--format', 'json'],
    env: {
      KILO_CONFIG: scriptedProvider(home, modelUrl),
      KILO_DISABLE_AUTOUPDATE: '1',
      KILO_DISABLE_MODELS_FETCH: '1',
      KILO_DISABLE_LSP_DOWNLOAD: '1',
      KILO_DISABLE_SHARE: '1',
      KILO_DISABLE_SESSION_INGEST: '1',
      KILO_DISABLE_PRESENCE: '1',
      KILO_TELEMETRY_LEVEL: 'off', // anything but "all" turns its telemetry off
    },
  };
}

function qwen(settings: 'qwen-code' | 'qwen-code-always-load') {
  return ({ home, project, modelUrl }: Dirs): HostSetup => {
    const written = JSON.parse(block(settings, project));
    // usage statistics off: they would go to the network
    put(
      path.join(home, '.qwen/settings.json'),
      JSON.stringify({ ...written, privacy: { usageStatisticsEnabled: false } }),
    );
    return {
      bin: bin('qwen'),
      args: [...docCommand('qwen-code-run', 'qwen'), '--auth-type', 'openai', '-o', 'stream-json'],
      env: { OPENAI_API_KEY: 'scripted', OPENAI_BASE_URL: `${modelUrl}/v1`, OPENAI_MODEL: CHAT_MODEL },
    };
  };
}

function continueCli({ home, project, modelUrl }: Dirs): HostSetup {
  // The user's own config.yaml around the guide's mcpServers block: its header and model.
  const config = [
    'name: toolgate real-host suite',
    'version: 0.0.1',
    'schema: v1',
    'models:',
    '  - name: scripted',
    '    provider: openai',
    `    model: ${CHAT_MODEL}`,
    `    apiBase: ${modelUrl}/v1`,
    '    apiKey: scripted',
    '    roles: [chat, edit, apply]',
    block('continue', project),
  ].join('\n');
  put(path.join(home, '.continue/config.yaml'), config);
  return { bin: bin('cn'), args: [...docCommand('continue-run', 'cn'), '--format', 'json'], env: {} };
}

function copilot({ home, project, modelUrl }: Dirs): HostSetup {
  put(path.join(home, '.copilot/mcp-config.json'), block('copilot', project));
  return {
    bin: bin('copilot'),
    args: [...docCommand('copilot-run', 'copilot'), '--output-format', 'json'],
    env: {
      // Copilot's offline bring-your-own-key mode: no GitHub sign-in, no other traffic
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
      COPILOT_PROVIDER_API_KEY: 'scripted',
      COPILOT_MODEL: CHAT_MODEL,
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_CACHE_HOME: copilotCache(),
    },
  };
}

// ---- the suite ---------------------------------------------------------------------------------

realHostSuite('issue #31 §1: real hosts opencode, Kilo CLI, qwen-code, Continue, Copilot CLI', (timed) => {
  /**
   * The two cases every host has: denied without toolgate.toml, written with the allowlist.
   * `how`: what else is checked of both runs (how the host offered and ran the tools).
   */
  const both = (label: string, options: Omit<ScenarioOptions, 'allow'>, how = (_o: Outcome) => {}) => {
    it(
      'without toolgate.toml: tools listed, the read reaches the model, the write is denied with the allowlist line',
      async () => {
        const o = await timed(`${label} default`, { ...options, allow: false });
        expectRunCompleted(o);
        how(o);
        expectWriteDenied(o);
      },
      TEST_TIMEOUT_MS,
    );
    it(
      'with the allowlist (trusted): the file is written',
      async () => {
        const o = await timed(`${label} allow`, { ...options, allow: true });
        expectRunCompleted(o);
        how(o);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );
  };

  /** The tools the model called, as the host named them (qwen's bridge: `tool_call` → its target). */
  const called = (o: Outcome) =>
    o.exchanges.flatMap((e) =>
      e.reply && 'tool' in e.reply
        ? [e.reply.tool === 'tool_call' ? `tool_call(${String(e.reply.args.name)})` : e.reply.tool]
        : [],
    );

  describe('opencode (its MCP tools as toolgate_read_file)', () =>
    both('opencode', { setup: opencode }, (o) =>
      expect(called(o)).toEqual(['toolgate_read_file', 'toolgate_write_file']),
    ));

  describe('Kilo CLI (its MCP tools as toolgate_read_file)', () =>
    both('kilo', { setup: kilo }, (o) =>
      expect(called(o)).toEqual(['toolgate_read_file', 'toolgate_write_file']),
    ));

  describe('qwen-code (deferred: named in a reminder, reviewed with tool_search, run through tool_call)', () => {
    both('qwen', { setup: qwen('qwen-code') }, (o) =>
      expect(called(o)).toEqual([
        // every toolgate tool's schema reviewed, at most 20 a search
        ...Array(Math.ceil(toolgateTools().size / 20)).fill('tool_search'),
        'tool_call(mcp__toolgate__read_file)',
        'tool_call(mcp__toolgate__write_file)',
      ]),
    );
    it(
      'with alwaysLoadTools, the allowlist: toolgate tools declared directly, the file is written',
      async () => {
        const o = await timed('qwen alwaysLoadTools allow', {
          allow: true,
          setup: qwen('qwen-code-always-load'),
        });
        expectRunCompleted(o);
        expect(called(o)).toEqual(['mcp__toolgate__read_file', 'mcp__toolgate__write_file']);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );
  });

  describe('Continue (its MCP tools under their own names: read_file)', () =>
    both('continue', { setup: continueCli, unprefixed: true }, (o) =>
      expect(called(o)).toEqual(['read_file', 'write_file']),
    ));

  describe('Copilot CLI, offline BYOK (its MCP tools as toolgate-read_file; declines forms in -p)', () =>
    both('copilot', { setup: copilot }, (o) =>
      expect(called(o)).toEqual(['toolgate-read_file', 'toolgate-write_file']),
    ));
});
