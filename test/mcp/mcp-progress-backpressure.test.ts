import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { makeTempDir } from '../helpers/workspace.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
const MB = 1024 * 1024;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

/**
 * An MCP client on stdio that stops reading for a while: the kind of slow client that, without
 * backpressure, makes a server hold everything the command printed in memory.
 */
describe('MCP progress under a client that stops reading (issue #14 items 5 and 7)', () => {
  it('the command is paused while the client is behind: server memory stays flat, and every byte still arrives in order', async () => {
    const root = makeTempDir('toolgate-mcp-bp-');
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      '[tools.approval]\ndenylist = []\n[tools.run_command]\nallow = ["sh gen.sh"]\n',
    );
    const total = 128 * MB;
    writeFileSync(path.join(root, 'gen.sh'), `head -c ${total} /dev/zero | tr '\\0' 'x'\n`);
    // Named, so it applies in full (a config found in the project only tightens: issue #29 §6).
    const server = spawn(process.execPath, [BIN, 'mcp', '--no-journal', '--config', 'toolgate.toml'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const send = (message: object) => server.stdin.write(`${JSON.stringify(message)}\n`);
    // Messages as they come, taken apart at once (256 MB is not kept); the reader can be stopped.
    let pending = '';
    const messages: { id?: number; method?: string; result?: unknown }[] = [];
    let streamed = 0;
    let onlyX = true;
    let onMessage: (() => void) | undefined;
    server.stdout.setEncoding('utf8');
    server.stdout.on('data', (chunk: string) => {
      pending += chunk;
      let at = pending.indexOf('\n');
      while (at >= 0) {
        const message = JSON.parse(pending.slice(0, at));
        pending = pending.slice(at + 1);
        at = pending.indexOf('\n');
        if (message.method === 'notifications/progress') {
          streamed += message.params.message.length;
          onlyX &&= /^x*$/.test(message.params.message);
          message.params.message = '';
        }
        messages.push(message);
      }
      onMessage?.();
    });
    const waitFor = (test: (m: (typeof messages)[number]) => boolean) =>
      new Promise<void>((resolve) => {
        onMessage = () => {
          if (messages.some(test)) resolve();
        };
        onMessage();
      });
    try {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'slow', version: '0' },
        },
      });
      await waitFor((m) => m.id === 1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'run_command',
          arguments: { command: 'sh gen.sh' },
          _meta: { progressToken: 'p' },
        },
      });
      await waitFor((m) => m.method === 'notifications/progress' || m.id === 2);
      // Stop reading for two seconds: the command would print all 128 MB in well under that.
      server.stdout.pause();
      const before = rssOf(server.pid as number);
      let peak = before;
      for (let i = 0; i < 20; i++) {
        await new Promise((r) => setTimeout(r, 100));
        peak = Math.max(peak, rssOf(server.pid as number));
      }
      server.stdout.resume();
      await waitFor((m) => m.id === 2);
      const result = messages.find((m) => m.id === 2)?.result as { isError: boolean };
      expect(result.isError).toBe(false);
      expect(streamed).toBe(total);
      expect(onlyX).toBe(true);
      // Without backpressure the server holds what the client did not read: over 100 MB.
      expect(peak - before).toBeLessThan(64 * MB);
    } finally {
      server.kill('SIGKILL');
    }
  }, 120_000);
});
