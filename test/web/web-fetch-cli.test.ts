import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { makeTempDir } from '../helpers/workspace.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
const run = promisify(execFile);

/** web_fetch through the real CLI: `toolgate exec` and `toolgate mcp` with the SDK client. */
describe('web_fetch through exec and mcp (issue #15)', () => {
  let server: http.Server;
  let port = 0;
  const root = makeTempDir('toolgate-web-cli-');
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<html><head><title>Harbour</title></head><body><article><h1>Harbour</h1><p>Slack water at noon, give or take.</p></article></body></html>',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      `[tools.approval]\nallowlist = ["web_fetch"]\n[tools.web]\nallow_private = ["127.0.0.1:${port}"]\n`,
    );
  });
  afterAll(() => server.close());

  it('toolgate exec: the page as Markdown; a private address not on allow_private is refused', async () => {
    const calls = [
      { id: '1', name: 'web_fetch', arguments: { url: `http://127.0.0.1:${port}/` } },
      { id: '2', name: 'web_fetch', arguments: { url: 'http://127.0.0.1:9/' } },
    ];
    const child = run(process.execPath, [BIN, 'exec', '--no-journal', '--config', 'toolgate.toml'], {
      cwd: root,
    });
    child.child.stdin?.end(JSON.stringify(calls));
    const results = JSON.parse((await child).stdout) as {
      ok: boolean;
      content: string;
      error?: { type: string };
    }[];
    expect(results[0]?.ok).toBe(true);
    expect(results[0]?.content).toContain('Slack water at noon, give or take.');
    expect(results[1]?.error?.type).toBe('SandboxViolation');
    expect(results[1]?.content).toContain('allow_private');
  });

  it('toolgate mcp: listed as an open-world, read-only tool; a call returns the page', async () => {
    const client = new Client({ name: 't', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--no-journal', '--config', 'toolgate.toml'],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'web_fetch');
      expect(tool?.annotations).toMatchObject({
        readOnlyHint: true,
        openWorldHint: true,
        destructiveHint: false,
      });
      const r = await client.callTool({
        name: 'web_fetch',
        arguments: { url: `http://127.0.0.1:${port}/`, format: 'text' },
      });
      expect(r.isError).toBe(false);
      expect((r.content as { text: string }[])[0]?.text).toContain('Slack water at noon');
    } finally {
      await client.close();
    }
  });
});
