import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { put, readmeBlock } from './hosts.js';
import {
  bin,
  type Dirs,
  expectRunCompleted,
  expectWriteDenied,
  expectWritten,
  type HostSetup,
  PROMPT,
  realHostSuite,
  TEST_TIMEOUT_MS,
} from './scenario.js';

/**
 * issue #14 item 2: the real MCP hosts Claude Code, Codex and gemini-cli (pinned in
 * test/hosts/pinned, installed outside the repository by test/hosts/install-hosts.sh) run headless
 * with the real `toolgate mcp` as their MCP server, configured with the README's own set-up blocks,
 * against a scripted model server in each host's wire format (scenario.ts says what is checked).
 * The five chat-completions hosts are in chat-hosts.test.ts.
 */

/**
 * gemini-cli leaves an MCP tool named write_todos out of what its model is offered (its policy
 * engine excludes the name, which its own todo tool has); the README says so.
 */
const GEMINI_HIDES = ['write_todos'];

// ---- the hosts ---------------------------------------------------------------------------------

function claude(hook = false) {
  return ({ home, project, modelUrl }: Dirs): HostSetup => {
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
  return ({ home, project, modelUrl }: Dirs): HostSetup => {
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

function gemini({ home, project, modelUrl }: Dirs): HostSetup {
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

realHostSuite('real hosts: Claude Code, Codex, gemini-cli', (timed) => {
  describe('Claude Code (Anthropic Messages)', () => {
    it(
      'without toolgate.toml: tools listed, the read reaches the model, the write is denied with the allowlist line',
      async () => {
        const o = await timed('claude default', { allow: false, setup: claude() });
        expectRunCompleted(o);
        expectWriteDenied(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "with the README's allowlist: the file is written",
      async () => {
        const o = await timed('claude allow', { allow: true, setup: claude() });
        expectRunCompleted(o);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "without toolgate.toml, the README's Elicitation hook approves: the file is written",
      async () => {
        const o = await timed('claude hook', { allow: false, setup: claude(true) });
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
        const o = await timed('codex default', { allow: false, setup: codex('codex') });
        expectRunCompleted(o);
        expectWriteDenied(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "required = true, with the README's allowlist: the file is written",
      async () => {
        const o = await timed('codex allow', { allow: true, setup: codex('codex') });
        expectRunCompleted(o);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'optional (no required = true; mcp_optional_startup_grace_ms = 0), with the allowlist: the file is written',
      async () => {
        const o = await timed('codex optional', { allow: true, setup: codex('codex-optional') });
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
        const o = await timed('gemini default', { allow: false, setup: gemini });
        expectRunCompleted(o, ['wait_for_previous'], GEMINI_HIDES);
        expectWriteDenied(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "with the README's allowlist: the file is written",
      async () => {
        const o = await timed('gemini allow', { allow: true, setup: gemini });
        expectRunCompleted(o, ['wait_for_previous'], GEMINI_HIDES);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      "with the README's allowlist, the model filling in wait_for_previous: both calls run, the file is written",
      async () => {
        const o = await timed('gemini allow + wait_for_previous', {
          allow: true,
          extraArgs: { wait_for_previous: true },
          setup: gemini,
        });
        expectRunCompleted(o, ['wait_for_previous'], GEMINI_HIDES);
        const calls = o.exchanges.flatMap((e) => (e.reply && 'tool' in e.reply ? [e.reply] : []));
        expect(calls.map((c) => c.args.wait_for_previous)).toEqual([true, true]);
        expectWritten(o);
      },
      TEST_TIMEOUT_MS,
    );
  });
});
