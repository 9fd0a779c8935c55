import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { REPO, trustProject } from '../cli/run-cli.js';
import { killMcpHttpServers, type McpHttpServer, startMcpHttp } from '../helpers/mcp-http-server.js';
import { makeTempDir } from '../helpers/workspace.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
afterEach(killMcpHttpServers);

/** Starts `toolgate mcp --no-journal --http` and resolves with the URL it prints and the token to send. */
async function serve(
  root: string,
  listen: string,
  env: NodeJS.ProcessEnv = {},
  extra: string[] = [],
): Promise<McpHttpServer> {
  return await startMcpHttp(root, listen, { env, args: ['--no-journal', ...extra] });
}

describe('toolgate mcp over Streamable HTTP (issue #6)', () => {
  it('binds 127.0.0.1 by default; list and call work with the SDK client', async () => {
    const root = makeTempDir('toolgate-mcp-http-');
    writeFileSync(path.join(root, 'a.txt'), 'over http\n');
    const { url, headers } = await serve(root, '0');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('grep');
    const r = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
    expect((r as { content: { text: string }[] }).content[0]?.text).toBe('over http\n');
    const outside = await client.callTool({ name: 'read_file', arguments: { path: '/etc/passwd' } });
    expect(outside.isError).toBe(true);
    await client.close();
  });

  it('any other address needs a bearer token, and refuses to start without one', async () => {
    const root = makeTempDir('toolgate-mcp-http-');
    const refused = spawnSync(process.execPath, [BIN, 'mcp', '--no-journal', '--http', '127.0.0.2:0'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/without a bearer token: set TOOLGATE_MCP_TOKEN/);
    const { url } = await serve(root, '127.0.0.2:0', { TOOLGATE_MCP_TOKEN: 'sekret-token' });
    const anonymous = new Client({ name: 't', version: '1' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow();
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: 'Bearer sekret-token' } },
      }),
    );
    expect((await client.listTools()).tools.length).toBeGreaterThan(5);
    await client.close();
  });

  it('DNS rebinding and cross-site pages are refused: Host and Origin must be this loopback server (raw HTTP)', async () => {
    const server = await serve(makeTempDir('toolgate-mcp-http-'), '0');
    const port = Number(new URL(server.url).port);
    const init = JSON.stringify(INITIALIZE);
    const cases: [Record<string, string>, number][] = [
      [{ host: `evil.example:${port}` }, 403],
      [{ host: `127.0.0.1:${port + 1}` }, 403],
      [{ host: `127.0.0.1:${port}`, origin: 'http://evil.example' }, 403],
      [{ host: `localhost:${port}`, origin: `http://evil.example:${port}` }, 403],
      [{ host: `127.0.0.1:${port}`, origin: 'null' }, 403],
      [{ host: `127.0.0.1:${port}` }, 200],
      [{ host: `localhost:${port}`, origin: `http://localhost:${port}` }, 200],
    ];
    for (const [headers, status] of cases) {
      const r = await rawPost(port, init, { ...headers, ...server.headers });
      expect(r.status, JSON.stringify(headers)).toBe(status);
      if (status === 403) expect(r.body).toMatch(/not this server|may not use this server/);
    }
  });

  it('request bodies are capped (413 without reading the rest), configurable with --max-body', async () => {
    const server = await serve(makeTempDir('toolgate-mcp-http-'), '0', {}, ['--max-body', '65536']);
    const port = Number(new URL(server.url).port);
    const host = `127.0.0.1:${port}`;
    const big = await rawPost(port, 'x'.repeat(200_000), { host, ...server.headers });
    expect(big.status).toBe(413);
    expect(big.body).toMatch(/larger than 65536 bytes; raise it with --max-body/);
    // A body that never declares its length is cut off at the cap as it streams in.
    const chunked = await rawPost(port, 'y'.repeat(300_000), {
      host,
      'transfer-encoding': 'chunked',
      ...server.headers,
    });
    expect(chunked.status).toBe(413);
    expect((await rawPost(port, JSON.stringify(INITIALIZE), { host, ...server.headers })).status).toBe(200);
  });

  it('a wrong bearer token is refused whatever its length (compared in constant time)', async () => {
    const url = new URL(
      (await serve(makeTempDir('toolgate-mcp-http-'), '127.0.0.2:0', { TOOLGATE_MCP_TOKEN: 'tok-123' })).url,
    );
    const port = Number(url.port);
    const host = `127.0.0.2:${port}`;
    for (const authorization of [
      '',
      'Bearer tok-12',
      'Bearer tok-1234',
      'Bearer TOK-123',
      'tok-123',
      'Basic tok-123',
    ]) {
      expect(
        (await rawPost(port, JSON.stringify(INITIALIZE), { host, authorization }, '127.0.0.2')).status,
      ).toBe(401);
    }
    expect(
      (
        await rawPost(
          port,
          JSON.stringify(INITIALIZE),
          { host, authorization: 'Bearer tok-123' },
          '127.0.0.2',
        )
      ).status,
    ).toBe(200);
  });
});

describe('toolgate mcp --http with a token per user (TOOLGATE_MCP_USER_TOKENS): the MCP client identity', () => {
  const ALICE = 'alice-token-0123456789';
  const BOB = 'bob-token-0123456789ab';
  const connect = async (url: string, token: string) => {
    const client = new Client({ name: 't', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    return { client, transport };
  };
  const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text ?? '';

  it("each token's user has their own memory; an unknown token is 401; a session cannot be used with another user's token", async () => {
    const root = makeTempDir('toolgate-mcp-users-');
    const { url } = await serve(root, '0', { TOOLGATE_MCP_USER_TOKENS: `alice:${ALICE}, bob:${BOB}` }, [
      '--user',
      'nobody-in-particular',
    ]);
    const alice = await connect(url, ALICE);
    const bob = await connect(url, BOB);
    const saved = await alice.client.callTool({
      name: 'memory_save',
      arguments: { content: 'The spare tiller is in the forepeak.' },
    });
    expect(saved.isError).toBe(false);
    const mine = JSON.parse(
      text(await alice.client.callTool({ name: 'memory_search', arguments: { query: 'tiller' } })),
    );
    expect(mine.map((h: { text: string }) => h.text)).toEqual(['The spare tiller is in the forepeak.']);
    const theirs = JSON.parse(
      text(await bob.client.callTool({ name: 'memory_search', arguments: { query: 'tiller' } })),
    );
    expect(theirs).toEqual([]);

    const port = Number(new URL(url).port);
    const host = `127.0.0.1:${port}`;
    expect((await rawPost(port, JSON.stringify(INITIALIZE), { host })).status).toBe(401);
    expect(
      (await rawPost(port, JSON.stringify(INITIALIZE), { host, authorization: 'Bearer not-a-known-token' }))
        .status,
    ).toBe(401);
    // alice's session id with bob's token: refused, and nothing of alice's is answered
    const hijack = await rawPost(
      port,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'memory_search', arguments: { query: 'tiller' } },
      }),
      {
        host,
        authorization: `Bearer ${BOB}`,
        'mcp-session-id': alice.transport.sessionId ?? '',
        'mcp-protocol-version': '2025-06-18',
      },
    );
    expect(hijack.status).toBe(403);
    expect(hijack.body).not.toContain('forepeak');
    await alice.client.close();
    await bob.client.close();
  });

  it('the shared token beside per-user tokens is an identity of its own, never --user’s (review finding)', async () => {
    const root = makeTempDir('toolgate-mcp-users-');
    const SHARED = 'shared-token-0123456789';
    const { url } = await serve(
      root,
      '0',
      { TOOLGATE_MCP_TOKEN: SHARED, TOOLGATE_MCP_USER_TOKENS: `alice:${ALICE}, bob:${BOB}` },
      ['--user', 'alice', '--session', 'team'],
    );
    const alice = await connect(url, ALICE);
    const shared = await connect(url, SHARED);
    const bob = await connect(url, BOB);
    await alice.client.callTool({
      name: 'memory',
      arguments: { action: 'set', key: 'alice-pin', value: '4711' },
    });
    const got = await shared.client.callTool({
      name: 'memory',
      arguments: { action: 'get', key: 'alice-pin' },
    });
    expect(got.isError).toBe(true);
    expect(text(got)).not.toContain('4711');
    await shared.client.callTool({
      name: 'memory',
      arguments: { action: 'set', key: 'shared-note', value: 'x' },
    });
    const listed = await alice.client.callTool({ name: 'memory', arguments: { action: 'list' } });
    expect(text(listed)).toContain('alice-pin');
    expect(text(listed)).not.toContain('shared-note');
    for (const c of [alice, shared, bob]) await c.client.close();
  });

  it('--session is each identity’s own: two people on one server never share a session (grants, caches, todos)', async () => {
    const root = makeTempDir('toolgate-mcp-users-');
    writeFileSync(path.join(root, 'a.txt'), 'x\n');
    const file = path.join(makeTempDir('toolgate-mcp-users-j-'), 'journal.db');
    const { url } = await startMcpHttp(root, '0', {
      env: { TOOLGATE_MCP_USER_TOKENS: `alice:${ALICE}, bob:${BOB}` },
      args: ['--journal', file, '--session', 'team'],
    });
    for (const token of [ALICE, BOB]) {
      const c = await connect(url, token);
      await c.client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
      await c.client.close();
    }
    const journal = SqliteJournal.open(file);
    expect(new Set(journal.recentBatches(10).map((b) => b.session))).toEqual(
      new Set(['team:alice', 'team:bob']),
    );
    journal.close();
  });

  it('a malformed list or a short token stops the server at start, naming the problem', () => {
    for (const [value, message] of [
      ['alice', /"name:token" entries/],
      ['alice:short', /shorter than 16 characters/],
      [`alice:${ALICE},alice:${BOB}`, /names alice twice/],
    ] as const) {
      const r = spawnSync(process.execPath, [BIN, 'mcp', '--no-journal', '--http', '0'], {
        cwd: makeTempDir('toolgate-mcp-users-'),
        env: { ...process.env, TOOLGATE_MCP_USER_TOKENS: value },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(r.status, value).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** One POST with exactly these headers (Host included), as a browser or an attacker could send it. */
function rawPost(
  port: number,
  body: string,
  headers: Record<string, string>,
  address = '127.0.0.1',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: address,
        port,
        path: '/mcp',
        method: 'POST',
        setHost: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(headers['transfer-encoding'] ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', (error) => reject(error));
    req.end(body);
  });
}

describe('toolgate mcp --http: sessions a client leaves open do not pile up', () => {
  it('a session without a connection or request for --session-idle is closed (its id then gets 404; initializing again works); one with a call running is kept', async () => {
    const root = makeTempDir('toolgate-mcp-idle-');
    writeFileSync(path.join(root, 'a.txt'), 'hello');
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      '[tools.approval]\ndenylist = []\n[tools.run_command]\nallow = ["sleep"]\n',
    );
    trustProject(root); // a project's own config applies in full once trusted (issue #29 §6)
    const { url, headers } = await startMcpHttp(root, '127.0.0.1:0', {
      args: ['--no-journal', '--session-idle', '1'],
    });
    const connect = async () => {
      const client = new Client({ name: 'idle-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
      await client.connect(transport);
      return { client, transport };
    };
    const idle = await connect();
    const busy = await connect();
    expect((await idle.client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } })).isError).toBe(
      false,
    );
    const idleId = idle.transport.sessionId as string;
    // The SDK client's close() drops its connections but sends no DELETE: the session lingers
    // until the idle limit. busy stays connected, with a 2.5 s call running: its session is kept.
    await idle.client.close();
    const long = busy.client.callTool({ name: 'run_command', arguments: { command: 'sleep 2.5' } });
    await new Promise((r) => setTimeout(r, 1800));
    const stale = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': idleId,
        'mcp-protocol-version': '2025-06-18',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
    });
    expect(stale.status).toBe(404);
    expect(await stale.text()).toMatch(/initialize again/);
    const done = await long;
    expect(done.isError).toBe(false);
    // The busy session is still there right after its call.
    expect((await busy.client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } })).isError).toBe(
      false,
    );
    // A new client (or the old one, initializing again) gets a fresh session.
    const again = await connect();
    expect((await again.client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } })).isError).toBe(
      false,
    );
    for (const c of [idle, busy, again]) await c.client.close().catch(() => {});
  }, 30_000);
});
