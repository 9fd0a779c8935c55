import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { type DirectToolCall, FastStdioServerTransport } from '../../src/mcp/fast-stdio-transport.js';
import { createMcpServer } from '../../src/mcp/mcp-server.js';
import { useWorkspace } from '../helpers/workspace.js';

const ws = useWorkspace();
type Line = Record<string, unknown> & { id?: unknown; method?: string };

/** A transport on real streams: what we write is the client's side, `lines` what the server sent. */
function wire(direct?: DirectToolCall) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new FastStdioServerTransport(input, output, direct);
  const lines: Line[] = [];
  const raw: string[] = [];
  const errors: Error[] = [];
  transport.onerror = (error) => errors.push(error);
  let waiting: { match: (l: Line) => boolean; resolve: (l: Line) => void }[] = [];
  let buffered = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      raw.push(buffered.slice(0, end));
      const line = JSON.parse(buffered.slice(0, end)) as Line;
      buffered = buffered.slice(end + 1);
      lines.push(line);
      const ready = waiting.filter((w) => w.match(line));
      waiting = waiting.filter((w) => !w.match(line));
      for (const w of ready) w.resolve(line);
    }
  });
  /** The first line the server sent that matches (resolves when it is sent). */
  const waitFor = (match: (l: Line) => boolean) =>
    new Promise<Line>((resolve) => {
      const found = lines.find(match);
      if (found) resolve(found);
      else waiting.push({ match, resolve });
    });
  /** The server's line with this id. */
  const answer = (id: unknown) => waitFor((l) => l.id === id);
  const send = (message: unknown, end = '\n') => input.write(`${JSON.stringify(message)}${end}`);
  return { input, transport, lines, raw, errors, answer, waitFor, send };
}

const call = (id: number | string, name: string, args: Record<string, unknown>, extra = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...extra },
});
const textOf = (line: Line) =>
  ((line.result as { content: { text: string }[] } | undefined)?.content[0]?.text ?? '') as string;

async function served() {
  const root = ws.dir();
  ws.file('café.txt', 'crème\n');
  const mcp = createMcpServer({ roots: [root], baseDir: root });
  const w = wire(mcp.callTool);
  await mcp.server.connect(w.transport);
  return { ...w, mcp };
}

describe('the stdio transport of toolgate mcp, with its direct lane for plain tools/call (issue #14)', () => {
  it('a request split across reads, even inside a UTF-8 character, and a CRLF line are answered as sent', async () => {
    const { input, answer, send, raw } = await served();
    const bytes = Buffer.from(`${JSON.stringify(call(1, 'read_file', { path: 'café.txt' }))}\n`);
    const inside = bytes.indexOf(Buffer.from('é')) + 1; // between the two bytes of the é
    input.write(bytes.subarray(0, 10));
    input.write(bytes.subarray(10, inside));
    input.write(bytes.subarray(inside));
    expect(textOf(await answer(1))).toContain('crème');
    send(call(2, 'read_file', { path: 'café.txt' }), '\r\n');
    expect(textOf(await answer(2))).toContain('crème');
    // Two requests in one read, answered in the order sent.
    input.write(
      `${JSON.stringify(call(3, 'read_file', { path: 'café.txt' }))}\n${JSON.stringify(call(4, 'list_directory', { path: '.' }))}\n`,
    );
    expect(textOf(await answer(3))).toContain('crème');
    expect(textOf(await answer(4))).toContain('café.txt');
    // Keys in the SDK's order: a client that looks for the id at the end of a line still finds it.
    expect(
      raw
        .filter((l) => l.includes('"result"'))
        .every((l) => /^\{"result":.*"jsonrpc":"2\.0","id":\d+\}$/.test(l)),
    ).toBe(true);
  });

  it('a line that is not JSON (or not JSON-RPC) is reported and the next request is still answered', async () => {
    const { input, answer, send, errors, lines } = await served();
    input.write('{"jsonrpc": "2.0", "id": 9, "method": \n');
    send({ jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: { name: 'read_file' } });
    send(call(10, 'read_file', { path: 'café.txt' }));
    expect(textOf(await answer(10))).toContain('crème');
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/JSON/),
      expect.stringMatching(/not a JSON-RPC message/),
    ]);
    expect(lines.filter((l) => l.id === 9 || l.id === 1.5)).toEqual([]);
  });

  it('a tools/call the lane does not take goes through the SDK, which validates it, and gets the same answer', async () => {
    const { answer, send } = await served();
    send(call(1, 'read_file', { path: 'café.txt' }));
    // An extra key in params: the SDK's schema drops it; the call is the same.
    send(call(2, 'read_file', { path: 'café.txt' }, { hint: 'x' }));
    const [plain, viaSdk] = await Promise.all([answer(1), answer(2)]);
    expect(viaSdk.result).toEqual(plain.result);
    // Not valid for the SDK either (no name): its error, as before the lane existed.
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } });
    expect((await answer(3)).error).toMatchObject({ code: -32603, message: expect.stringMatching(/name/) });
    // Other requests are the SDK's as ever.
    send({ jsonrpc: '2.0', id: 4, method: 'ping' });
    expect((await answer(4)).result).toEqual({});
  });

  it('a cancelled call gets no answer, its notifications stop, and closing the connection stops the rest', async () => {
    const started: string[] = [];
    const stopped: string[] = [];
    const notifyAfterAbort: Promise<void>[] = [];
    const direct: DirectToolCall = (params, { signal, notify }) =>
      new Promise((resolve) => {
        started.push(params.name);
        void notify({
          method: 'notifications/progress',
          params: { progressToken: params.name, progress: 1 },
        });
        signal.addEventListener('abort', () => {
          stopped.push(params.name);
          notifyAfterAbort.push(
            notify({ method: 'notifications/progress', params: { progressToken: params.name, progress: 2 } }),
          );
          resolve({ content: [{ type: 'text', text: 'stopped' }] });
        });
      });
    const { send, lines, transport, answer, waitFor } = wire(direct);
    let closed = false;
    transport.onclose = () => {
      closed = true;
    };
    await transport.start();
    send(call(1, 'one', {}));
    send(call(2, 'two', {}));
    const progressOf = (token: string) => (l: Line) =>
      (l.params as { progressToken?: string })?.progressToken === token;
    await Promise.all([waitFor(progressOf('one')), waitFor(progressOf('two'))]);
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'user' } });
    await new Promise((r) => setImmediate(r));
    expect(stopped).toEqual(['one']);
    await transport.close();
    expect(closed).toBe(true);
    expect(stopped).toEqual(['one', 'two']);
    await Promise.all(notifyAfterAbort);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['one', 'two']);
    // Each call's first notification went out; nothing after its abort, and no answer at all.
    expect(lines.map((l) => (l.params as { progressToken?: string }).progressToken)).toEqual(['one', 'two']);
    expect(lines.every((l) => l.method === 'notifications/progress')).toBe(true);
    // A request arriving after the close is not read.
    send(call(3, 'three', {}));
    const late = await Promise.race([answer(3), new Promise((r) => setTimeout(() => r('none'), 50))]);
    expect(late).toBe('none');
  });

  it('the same id twice (a client mistake): both run and are answered, as the SDK does; a cancellation stops the latest', async () => {
    const direct: DirectToolCall = (params, { signal }) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: params.name }] }), 30);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve({ content: [{ type: 'text', text: `${params.name} stopped` }] });
        });
      });
    const { send, lines, transport, waitFor } = wire(direct);
    await transport.start();
    send(call(5, 'first', {}));
    send(call(5, 'second', {}));
    await waitFor((l) => textOf(l) === 'second');
    await waitFor((l) => textOf(l) === 'first');
    send(call(6, 'third', {}));
    send(call(6, 'fourth', {}));
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 6 } });
    await waitFor((l) => textOf(l) === 'third');
    await new Promise((r) => setTimeout(r, 60));
    expect(lines.map(textOf).sort()).toEqual(['first', 'second', 'third']);
  });

  it('a handler that throws is a JSON-RPC error response with its code, or -32603', async () => {
    const direct: DirectToolCall = async (params) => {
      if (params.name === 'coded')
        throw Object.assign(new Error('bad params here'), { code: -32602, data: { at: 'x' } });
      throw new Error('it broke');
    };
    const { send, transport, answer } = wire(direct);
    await transport.start();
    send(call('a', 'coded', {}));
    send(call('b', 'plain', {}));
    expect((await answer('a')).error).toEqual({
      code: -32602,
      message: 'bad params here',
      data: { at: 'x' },
    });
    expect((await answer('b')).error).toEqual({ code: -32603, message: 'it broke' });
  });

  it('a line longer than 10 MB without an end is refused: reported, and the connection closed', async () => {
    const { input, transport, errors } = wire(async () => ({ content: [] }));
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
    });
    await transport.start();
    const piece = Buffer.alloc(1024 * 1024, 'a');
    for (let i = 0; i < 11; i++) input.write(piece);
    await closed;
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/longer than 10485760 bytes/)]);
  });
});

/** Several messages in one write (one read on the other side). */
function sendTogether(send: (message: unknown, end?: string) => unknown, messages: unknown[]) {
  send(
    messages[0],
    `\n${messages
      .slice(1)
      .map((m) => JSON.stringify(m))
      .join('\n')}\n`,
  );
}

describe('the stdio transport under a careless or hostile client', () => {
  it('a call cancelled in the read it arrived in still reaches the journal, as cancelled (nothing ran)', async () => {
    const root = ws.dir();
    ws.file('a.txt', 'a\n');
    const journal = SqliteJournal.open(path.join(root, 'j.db'));
    try {
      const mcp = createMcpServer({ roots: [root], baseDir: root, journal });
      const { send, transport } = wire(mcp.callTool);
      await mcp.server.connect(transport);
      send(
        call(1, 'read_file', { path: 'a.txt' }),
        `\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })}\n`,
      );
      await new Promise((r) => setTimeout(r, 20));
      await mcp.idle();
      const [summary] = journal.recentBatches(5);
      const calls = journal.batch(summary?.id as string)?.calls ?? [];
      expect(calls.map((c) => [c.name, c.result?.error?.type])).toEqual([['read_file', 'Cancelled']]);
    } finally {
      journal.close();
    }
  });

  it('a message the SDK server throws on is reported, not thrown out of the stream (the server stays up)', async () => {
    const { send, transport, errors, answer } = wire(async () => ({
      content: [{ type: 'text', text: 'ok' }],
    }));
    await transport.start();
    transport.onmessage = (message) => {
      if ('method' in message && message.method === 'ping') throw new Error('boom from onmessage');
    };
    send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    send(call(2, 'still', {}));
    expect(textOf(await answer(2))).toBe('ok');
    expect(errors.map((e) => e.message)).toEqual(['boom from onmessage']);
    // A message that cannot be written is a rejected promise, as the SDK's send gives.
    await expect(transport.send({ jsonrpc: '2.0', id: 3, result: { n: 1n } as never })).rejects.toThrow(
      /BigInt/,
    );
  });

  it('blank lines between messages are skipped', async () => {
    const { input, transport, errors, answer } = wire(async () => ({
      content: [{ type: 'text', text: 'ok' }],
    }));
    await transport.start();
    input.write(`\n  \r\n${JSON.stringify(call(1, 'x', {}))}\n\n`);
    expect(textOf(await answer(1))).toBe('ok');
    expect(errors).toEqual([]);
  });
});

describe('calls wait for the client roots whatever order the client sent things in', () => {
  /** A server with a client that declares roots and answers roots/list with root/a only. */
  async function narrowed() {
    const root = ws.dir();
    ws.file('a/in.txt', 'inside\n');
    ws.file('b/out.txt', 'outside the client roots\n');
    const mcp = createMcpServer({ roots: [root], baseDir: root });
    const w = wire(mcp.callTool);
    await mcp.server.connect(w.transport);
    void w
      .waitFor((l) => l.method === 'roots/list')
      .then((asked) => {
        w.send({ jsonrpc: '2.0', id: asked.id, result: { roots: [{ uri: `file://${root}/a` }] } });
      });
    const initialize = {
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { roots: { listChanged: true } },
        clientInfo: { name: 'order-test', version: '1' },
      },
    };
    // Relative paths resolve in the first root: under the configured root b/out.txt is the secret;
    // under the client's root (root/a) it names nothing, and in.txt is the inside file.
    return { ...w, initialize, outside: 'b/out.txt', inside: 'in.txt' };
  }
  const refusedOutside = (line: Line) => {
    expect((line.result as { isError?: boolean }).isError).toBe(true);
    expect(textOf(line)).not.toContain('outside the client roots');
  };

  it('initialized, then the call, in one write', async () => {
    const { send, answer, initialize, outside } = await narrowed();
    send(initialize);
    await answer('init');
    sendTogether(send, [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      call(1, 'read_file', { path: outside }),
    ]);
    refusedOutside(await answer(1));
  });

  it('the call before initialized, in one write', async () => {
    const { send, answer, initialize, outside, inside } = await narrowed();
    send(initialize);
    await answer('init');
    sendTogether(send, [
      call(1, 'read_file', { path: outside }),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    refusedOutside(await answer(1));
  });

  it('initialize and initialized in one write (pipelined), the call after', async () => {
    const { send, answer, initialize, outside, inside } = await narrowed();
    sendTogether(send, [initialize, { jsonrpc: '2.0', method: 'notifications/initialized' }]);
    await answer('init');
    send(call(1, 'read_file', { path: outside }));
    refusedOutside(await answer(1));
    send(call(2, 'read_file', { path: inside }));
    expect(textOf(await answer(2))).toContain('inside');
  });

  it('the call without any initialized notification at all', async () => {
    const { send, answer, initialize, outside, inside } = await narrowed();
    send(initialize);
    await answer('init');
    send(call(1, 'read_file', { path: outside }));
    refusedOutside(await answer(1));
  });
});
