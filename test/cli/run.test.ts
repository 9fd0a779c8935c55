import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import { type ReplayServer, requestBody, startReplayServer } from '../helpers/replay-server.js';
import { replayModelArgs, runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir, useWorkspace } from '../helpers/workspace.js';
import { trustProject } from './run-cli.js';

const ws = useWorkspace();
let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const noKeys = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '' };

describe('toolgate run: exit codes and output (issue #7 §6)', () => {
  it('exit 2 with a one-line reason on bad usage, and nothing is sent', async () => {
    const root = makeTempDir();
    const cases: [string[], RegExp][] = [
      [['run', 'hi', '--model', 'm'], /choose a provider with --provider/],
      [['run', 'hi', '--provider', 'openai'], /no model: pass --model/],
      [['run', 'hi', '--provider', 'mystery', '--model', 'm'], /unknown provider "mystery"/],
      [
        ['run', 'hi', '--provider', 'anthropic', '--model', 'm'],
        /no API key for anthropic: set ANTHROPIC_API_KEY/,
      ],
      [
        ['run', 'hi', '--provider', 'openai-compatible', '--model', 'm', '--max-iterations', '0'],
        /--max-iterations expects a positive whole number/,
      ],
      [['run', '  ', '--provider', 'openai-compatible', '--model', 'm'], /the prompt is empty/],
      [
        ['run', 'hi', '--provider', 'openai-compatible', '--model', 'm', '--base-url', 'not a url'],
        /is not a URL/,
      ],
      [
        ['run', 'hi', '--provider', 'openai-compatible', '--model', 'm', '--base-url', 'localhost:11434'],
        /--base-url "localhost:11434" must start with http:\/\/ or https:\/\/ \(did you mean http:\/\/localhost:11434\?\)/,
      ],
    ];
    for (const [args, message] of cases) {
      const run = await runCliAsync([...args, '--root', root, '--no-journal'], { env: noKeys });
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('a base URL without the API version path still reaches the endpoint (Anthropic as Claude tools take it, a bare host)', async () => {
    const root = makeTempDir();
    for (const [kind, suffix, expected] of [
      ['anthropic', '', '/v1/messages'],
      ['anthropic', '/proxy', '/proxy/v1/messages'],
      ['anthropic', '/v1/', '/v1/messages'],
      ['openai-compatible', '', '/v1/chat/completions'],
      ['openai-compatible', '/v1', '/v1/chat/completions'],
    ] as const) {
      server = await startReplayServer([{ body: textAnswer(kind, 'ok') }]);
      const run = await runCliAsync(
        [
          'run',
          'hi',
          '--provider',
          kind,
          '--model',
          'm',
          '--base-url',
          `${server.url}${suffix}`,
          '--root',
          root,
          '--no-journal',
        ],
        { env: { ...noKeys, ANTHROPIC_API_KEY: 'k' } },
      );
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('ok');
      expect(server.requests.map((r) => r.path)).toEqual([expected]);
      await server.close();
      server = undefined;
    }
  });

  it('a server that accepts the request and never answers fails the turn after idle_timeout_seconds', async () => {
    const root = makeTempDir();
    const silent = createServer(() => {
      // accepts, never answers
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      `[providers.quiet]\nkind = "openai-compatible"\nbase_url = "http://127.0.0.1:${port}/v1"\nmodel = "m"\nidle_timeout_seconds = 1\n`,
    );
    trustProject(root); // a project's own config applies in full once trusted (issue #29 §6)
    const started = Date.now();
    const run = await runCliAsync(['run', 'hi', '--provider', 'quiet', '--root', root, '--no-journal'], {
      cwd: root,
    });
    silent.closeAllConnections();
    silent.close();
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /no answer from http:\/\/127\.0\.0\.1:\d+ for 1 s; check that the server is running, or raise idle_timeout_seconds/,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('prints the final assistant text, or with --json the whole turn in order', async () => {
    ws.file('notes.txt', 'remember the milk\n');
    server = await startReplayServer([
      {
        body: chatStream({
          text: 'Let me look.',
          calls: [{ id: 'c1', name: 'read_file', args: '{"path":"notes.txt"}' }],
        }),
      },
      { body: textAnswer('openai', 'It says: remember the milk.') },
    ]);
    const args = [
      '--provider',
      'openai',
      '--base-url',
      `${server.url}/v1`,
      '--model',
      'gpt-x',
      '--root',
      ws.dir(),
      '--no-journal',
    ];
    const run = await runCliAsync(['run', 'what do my notes say?', ...args, '--json'], {
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      { role: 'user', content: 'what do my notes say?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' }],
      },
      { role: 'tool', tool_call_id: 'c1', name: 'read_file', ok: true, content: 'remember the milk\n' },
      { role: 'assistant', content: 'It says: remember the milk.', tool_calls: [] },
    ]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');

    await server.close();
    server = await startReplayServer([{ body: textAnswer('openai', 'plain \u001b[31mred\u001b[0m answer') }]);
    const plain = await runCliAsync(
      ['run', 'hi', ...args.map((a) => (a.startsWith('http') ? `${server?.url}/v1` : a))],
      {
        env: { OPENAI_API_KEY: 'sk-test' },
      },
    );
    expect(plain.status).toBe(0);
    // Model text is sanitized before it reaches the terminal.
    expect(plain.stdout).toBe('plain red answer\n');
  });

  it('--verbose prints each call, each outcome and each retry on stderr; stdout keeps only the answer', async () => {
    ws.file('a.txt', 'A\n');
    server = await startReplayServer([
      { status: 503, body: '{"error":{"message":"busy"}}', headers: { 'retry-after': '0' } },
      {
        body: chatStream({
          calls: [
            { id: 'c1', name: 'read_file', args: '{"path":"a.txt"}' },
            { id: 'c2', name: 'read_file', args: '{"path":"missing.txt"}' },
          ],
        }),
      },
      { body: textAnswer('openai', 'done') },
    ]);
    const run = await runCliAsync(
      ['run', 'read', ...replayModelArgs(server.url), '--root', ws.dir(), '--no-journal', '--verbose'],
      { env: noKeys },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('done\n');
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe('retrying (1): HTTP 503: busy');
    expect(lines[1]).toBe('→ read_file {"path":"a.txt"}');
    expect(lines[2]).toBe('→ read_file {"path":"missing.txt"}');
    expect(lines[3]).toBe('✓ read_file');
    expect(lines[4]).toMatch(/^✗ read_file: .*missing\.txt/);
  });

  it('exit 1 with the provider message on stderr when the provider fails', async () => {
    server = await startReplayServer([{ status: 400, body: '{"error":{"message":"model not found"}}' }]);
    const run = await runCliAsync(
      [
        'run',
        'hi',
        '--provider',
        'openai-compatible',
        '--base-url',
        `${server.url}/v1`,
        '--model',
        'nope',
        '--root',
        makeTempDir(),
        '--no-journal',
      ],
      { env: noKeys },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/HTTP 400 .*model not found/);
  });

  it('a [providers.NAME] section supplies kind, base URL, model and key variable; --session continues the conversation', async () => {
    server = await startReplayServer([
      { body: textAnswer('anthropic', 'first') },
      { body: textAnswer('anthropic', 'second') },
    ]);
    ws.file(
      'toolgate.toml',
      `[providers.local]\nkind = "anthropic"\nbase_url = "${server.url}/v1"\nmodel = "claude-test"\napi_key_env = "MY_KEY"\nsystem = "be brief"\n`,
    );
    const base = ['--config', `${ws.dir()}/toolgate.toml`, '--session', 'chat-1'];
    const one = await runCliAsync(['run', 'hello', ...base], {
      env: { ...noKeys, MY_KEY: 'k-123' },
      cwd: ws.dir(),
    });
    expect(one.stderr).toBe('');
    expect(one.stdout).toBe('first\n');
    const two = await runCliAsync(['run', 'and again', ...base], {
      env: { ...noKeys, MY_KEY: 'k-123' },
      cwd: ws.dir(),
    });
    expect(two.stdout).toBe('second\n');
    expect(server.requests[0]?.headers['x-api-key']).toBe('k-123');
    expect(server.requests[0]?.path).toBe('/v1/messages');
    const body = server.requests[1]?.body as { system: string; model: string; messages: unknown };
    expect(body.system).toBe('be brief');
    // --system overrides the section's prompt.
    await server.close();
    server = await startReplayServer([{ body: textAnswer('anthropic', 'third') }]);
    ws.file(
      'toolgate.toml',
      `[providers.local]\nkind = "anthropic"\nbase_url = "${server.url}/v1"\nmodel = "claude-test"\napi_key_env = "MY_KEY"\nsystem = "be brief"\n`,
    );
    const three = await runCliAsync(
      ['run', 'x', '--config', `${ws.dir()}/toolgate.toml`, '--no-journal', '--system', 'be thorough'],
      {
        env: { ...noKeys, MY_KEY: 'k-123' },
        cwd: ws.dir(),
      },
    );
    expect(three.stdout).toBe('third\n');
    expect((requestBody(server, 0) as { system: string }).system).toBe('be thorough');
    expect(body.model).toBe('claude-test');
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'first' }] },
      { role: 'user', content: [{ type: 'text', text: 'and again' }] },
    ]);
  });
});

describe('toolgate run in parse_only mode, and chat without a terminal', () => {
  it('lists the pending calls, exits 0, and leaves no unfinished batch behind', async () => {
    server = await startReplayServer([
      { body: chatStream({ calls: [{ id: 'p1', name: 'lookup', args: '{"q":"x"}' }] }) },
      { body: textAnswer('openai', 'noted') },
    ]);
    ws.file(
      'toolgate.toml',
      '[tools]\nmode = "parse_only"\n[[tools.definitions]]\nname = "lookup"\nparameters = { type = "object" }\n',
    );
    const args = ['--config', `${ws.dir()}/toolgate.toml`, ...replayModelArgs(server.url), '--session', 'P'];
    const first = await runCliAsync(['run', 'look it up', ...args], { env: noKeys, cwd: ws.dir() });
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/these calls wait for your results:\n {2}p1 {2}lookup \{"q":"x"\}/);
    // The next run in the same session is not blocked by the pending batch.
    const second = await runCliAsync(['run', 'never mind', ...args], { env: noKeys, cwd: ws.dir() });
    expect(second.stderr).toBe('');
    expect(second.stdout).toBe('noted\n');
  });

  it('toolgate chat without a terminal is bad usage (exit 2) and points to toolgate run', async () => {
    const run = await runCliAsync([
      'chat',
      '--provider',
      'openai-compatible',
      '--model',
      'm',
      '--root',
      makeTempDir(),
      '--no-journal',
    ]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/needs an interactive terminal; for scripts use toolgate run/);
  });
});
