import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { makeTempDir } from '../helpers/workspace.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** Starts `toolgate mcp --http` and resolves with the URL it prints. */
function serve(root: string, listen: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--no-journal', '--http', listen], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (d) => {
      err += d;
      const m = /(http:\/\/\S+\/mcp)/.exec(err);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

describe('toolgate mcp over Streamable HTTP (issue #6)', () => {
  it('binds 127.0.0.1 by default; list and call work with the SDK client', async () => {
    const root = makeTempDir('toolgate-mcp-http-');
    writeFileSync(path.join(root, 'a.txt'), 'over http\n');
    const url = await serve(root, '0');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
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
    const url = await serve(root, '127.0.0.2:0', { TOOLGATE_MCP_TOKEN: 'sekret-token' });
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
});
