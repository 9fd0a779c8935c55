import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { killMcpHttpServers, startMcpHttp } from '../helpers/mcp-http-server.js';
import { makeTempDir } from '../helpers/workspace.js';

afterEach(killMcpHttpServers);

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const SECRET = 'root-only secret 7c1e';

/** A project holding a file only root can read. */
function project(): string {
  const root = makeTempDir('toolgate-one-owner-');
  writeFileSync(path.join(root, 'secret.txt'), `${SECRET}\n`, { mode: 0o600 });
  return root;
}

interface Sent {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: unknown;
}
interface Answer {
  status: number;
  body: string;
}

/**
 * The requests a client run by this process's user, or (`as: 'nobody'`, through runuser) by another
 * OS user of the machine, sends over raw HTTP. The token reaches the other user on its stdin: as if
 * it had leaked to them, the worst case.
 */
async function send(address: string, port: number, requests: Sent[], as?: 'nobody'): Promise<Answer[]> {
  const client = `
    const http = require('node:http');
    const { address, port, requests } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    const one = (r) => new Promise((resolve, reject) => {
      const body = r.body === undefined ? undefined : JSON.stringify(r.body);
      const req = http.request({ host: address, port, path: '/mcp', method: r.method, setHost: false,
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json',
          ...(body ? { 'content-length': Buffer.byteLength(body) } : {}), ...r.headers } }, (res) => {
        // The GET event stream (where approvals are asked) stays open: its status is the answer.
        if (r.method === 'GET' && String(res.headers['content-type']).startsWith('text/event-stream')) {
          resolve({ status: res.statusCode, body: '(event stream)' }); req.destroy(); return;
        }
        let text = ''; res.on('data', (d) => (text += d)); res.on('end', () => resolve({ status: res.statusCode, body: text }));
      });
      req.on('error', reject); req.end(body);
    });
    (async () => { const out = []; for (const r of requests) out.push(await one(r)); process.stdout.write(JSON.stringify(out)); })()
      .catch((e) => { console.error(e.message); process.exit(2); });`;
  const argv = as
    ? ['runuser', '-u', as, '--', process.execPath, '-e', client]
    : [process.execPath, '-e', client];
  const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(JSON.stringify({ address, port, requests }));
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`the client${as ? ` as ${as}` : ''} exited ${code}: ${err}`);
  return JSON.parse(out);
}

describe('issue #30 §6: one owner — toolgate mcp --http on loopback needs a token, and refuses other OS users', () => {
  it('issue #30 §6: a request without the token on 127.0.0.1 gets 401, saying how to pass it (and no path of this machine)', async () => {
    const server = await startMcpHttp(project(), '0', { args: ['--no-journal'] });
    const port = Number(new URL(server.url).port);
    const host = `127.0.0.1:${port}`;
    const [none, wrong, right] = await send('127.0.0.1', port, [
      { method: 'POST', headers: { host }, body: INITIALIZE },
      { method: 'POST', headers: { host, authorization: `Bearer ${'x'.repeat(43)}` }, body: INITIALIZE },
      { method: 'POST', headers: { host, ...server.headers }, body: INITIALIZE },
    ]);
    expect(none?.status).toBe(401);
    expect(JSON.parse(none?.body ?? '{}').error).toMatch(
      /^send "Authorization: Bearer TOKEN", TOKEN being the contents of \$XDG_STATE_HOME\/toolgate\/mcp-token \(by default ~\/\.local\/state\/toolgate\/mcp-token\)/,
    );
    expect(none?.body).not.toContain(path.dirname(server.tokenFile));
    expect(wrong?.status).toBe(401);
    expect(right?.status).toBe(200);
  });

  it('issue #30 §6: the generated token is kept 0600 in a 0700 directory, named on stderr but never printed, and the same after a restart', async () => {
    const root = project();
    const state = makeTempDir('toolgate-one-owner-state-');
    const first = await startMcpHttp(root, '0', { args: ['--no-journal'], env: { XDG_STATE_HOME: state } });
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(first.tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(first.tokenFile)).mode & 0o777).toBe(0o700);
    // The hint follows the URL line; wait for it.
    while (!first.stderr().includes('--header'))
      await once(first.child.stderr as NodeJS.ReadableStream, 'data');
    expect(first.stderr()).toContain(first.tokenFile);
    expect(first.stderr()).not.toContain(first.token);
    killMcpHttpServers();
    const again = await startMcpHttp(root, '0', { args: ['--no-journal'], env: { XDG_STATE_HOME: state } });
    expect(again.token).toBe(first.token);
  });

  it('issue #30 §6: a token file other users could read is not used: the server refuses to start, saying the fix first', async () => {
    const state = makeTempDir('toolgate-one-owner-state-');
    const first = await startMcpHttp(project(), '0', {
      args: ['--no-journal'],
      env: { XDG_STATE_HOME: state },
    });
    killMcpHttpServers();
    chmodSync(first.tokenFile, 0o644);
    await expect(
      startMcpHttp(project(), '0', { args: ['--no-journal'], env: { XDG_STATE_HOME: state } }),
    ).rejects.toThrow(
      /exited 2: toolgate: remove .*mcp-token \(toolgate makes a new token on its next start\)/,
    );
  });

  for (const [listen, address, host] of [
    ['0', '127.0.0.1', '127.0.0.1'],
    ['[::1]:0', '::1', '[::1]'],
  ] as const) {
    it(`issue #30 §6: another OS user (nobody) holding the right token is refused on ${address}: no session, no read of the owner's session, no approval stream`, async () => {
      const server = await startMcpHttp(project(), listen, { args: ['--no-journal'] });
      const port = Number(new URL(server.url).port);
      const headers = { host: `${host}:${port}`, ...server.headers };
      // The owner has a session open (as a host would), with its approval stream.
      const owner = new Client({ name: 'owner', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: server.headers },
      });
      await owner.connect(transport);
      const session = { 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-06-18' };
      const read = {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'read_file', arguments: { path: 'secret.txt' } },
      };
      const answers = await send(
        address,
        port,
        [
          { method: 'POST', headers, body: INITIALIZE },
          { method: 'POST', headers: { ...headers, ...session }, body: read },
          { method: 'GET', headers: { ...headers, ...session, accept: 'text/event-stream' } },
        ],
        'nobody',
      );
      for (const answer of answers) {
        expect(answer.status).toBe(403);
        expect(JSON.parse(answer.body).error).toMatch(
          /^connect as the OS user who runs toolgate \(uid 0\): this connection comes from another user of this machine \(uid 65534\)/,
        );
        expect(answer.body).not.toContain(SECRET);
      }
      // The same requests from the owner's own user go through.
      const mine = await send(address, port, [
        { method: 'POST', headers: { ...headers, ...session }, body: read },
      ]);
      expect(mine[0]?.status).toBe(200);
      expect(mine[0]?.body).toContain(SECRET);
      await owner.close();
    });
  }

  it('issue #30 §6: an explicit TOOLGATE_MCP_TOKEN does not let another OS user in either (127.0.0.2)', async () => {
    const token = 'explicit-token-0123456789abcdef';
    const server = await startMcpHttp(project(), '127.0.0.2:0', {
      args: ['--no-journal'],
      env: { TOOLGATE_MCP_TOKEN: token },
    });
    const port = Number(new URL(server.url).port);
    const headers = { host: `127.0.0.2:${port}`, authorization: `Bearer ${token}` };
    const [theirs] = await send('127.0.0.2', port, [{ method: 'POST', headers, body: INITIALIZE }], 'nobody');
    expect(theirs?.status).toBe(403);
    const [mine] = await send('127.0.0.2', port, [{ method: 'POST', headers, body: INITIALIZE }]);
    expect(mine?.status).toBe(200);
  });

  it('issue #30 §6: the owner with the token works end to end with the real MCP SDK client; without it the SDK client cannot connect', async () => {
    const server = await startMcpHttp(project(), '0', { args: ['--no-journal'] });
    const anonymous = new Client({ name: 'anonymous', version: '1' });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toThrow();
    const client = new Client({ name: 'owner', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('read_file');
    const r = await client.callTool({ name: 'read_file', arguments: { path: 'secret.txt' } });
    expect((r as { content: { text: string }[] }).content[0]?.text).toBe(`${SECRET}\n`);
    await client.close();
  });
});
