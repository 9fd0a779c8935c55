import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { REPO } from '../cli/run-cli.js';
import { makeTempDir } from '../helpers/workspace.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
const open: Client[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close().catch(() => {});
});

interface Connect {
  root: string;
  args?: string[];
  elicit?: (message: string) => 'yes' | 'no' | 'decline';
  roots?: string[];
  toml?: string;
}

async function connect(options: Connect) {
  if (options.toml) writeFileSync(path.join(options.root, 'toolgate.toml'), options.toml);
  const capabilities: Record<string, object> = {};
  if (options.elicit) capabilities.elicitation = {};
  if (options.roots) capabilities.roots = { listChanged: true };
  const client = new Client({ name: 'toolgate-test', version: '1.0.0' }, { capabilities });
  const asked: string[] = [];
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      const a = answer(String(request.params.message));
      return a === 'decline'
        ? { action: 'decline' }
        : { action: 'accept', content: { approve: a === 'yes' } };
    });
  }
  if (options.roots) {
    const roots = options.roots;
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.map((r) => ({ uri: pathToFileURL(r).href })),
    }));
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    // A config the test writes is named, so it applies in full (a found one only tightens: issue #29 §6).
    args: [
      BIN,
      'mcp',
      '--no-journal',
      ...(options.toml ? ['--config', 'toolgate.toml'] : []),
      ...(options.args ?? []),
    ],
    cwd: options.root,
    stderr: 'pipe',
  });
  await client.connect(transport);
  // Every message as it arrived, before the SDK handles it. The SDK client runs a notification's
  // handler a microtask later but settles a response at once, so a progress notification read in
  // the same chunk as its call's response never reaches `onprogress` (under load this happens):
  // what the server sent, and in which order, is read here instead.
  const wire: Record<string, unknown>[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message) => {
    wire.push(message as Record<string, unknown>);
    deliver?.(message);
  };
  open.push(client);
  return { client, asked, wire };
}

/**
 * The progress messages of the call answered last (the SDK's progress token is the request id), in
 * the order they arrived; each arrived before that call's response.
 */
function progressOfLastCall(wire: Record<string, unknown>[]): string[] {
  const at = wire.findLastIndex((m) => 'result' in m || 'error' in m);
  expect(at, 'a response is on the wire').toBeGreaterThan(-1);
  const id = wire[at]?.id;
  const ofCall = (m: Record<string, unknown>) =>
    m.method === 'notifications/progress' && (m.params as { progressToken?: unknown }).progressToken === id;
  expect(wire.slice(at).filter(ofCall), 'no progress after the result').toEqual([]);
  return wire
    .slice(0, at)
    .filter(ofCall)
    .map((m) => (m.params as { message: string }).message);
}

const text = (r: unknown) => (r as { content: { type: string; text: string }[] }).content[0]?.text ?? '';

describe('toolgate mcp over stdio, with the official SDK client (issue #6)', () => {
  it('tools/list: every tool, sorted, with schemas and annotations from the tiers', async () => {
    const root = makeTempDir('toolgate-mcp-');
    const { client } = await connect({ root });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('read_file');
    expect(names).toContain('run_command');
    const read = tools.find((t) => t.name === 'read_file');
    expect(read?.inputSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
    expect(read?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tools.find((t) => t.name === 'delete_file')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
  });

  it('JSON tools declare an outputSchema and return structuredContent the SDK client checks against it, even when cut to the output limit', async () => {
    const root = makeTempDir('toolgate-mcp-out-');
    // 1,500 entries of ~200-byte names: ~300 KB of listing, three times the 100 KB output limit.
    for (let i = 0; i < 1500; i++)
      writeFileSync(path.join(root, `${String(i).padStart(4, '0')}-${'n'.repeat(190)}.txt`), '');
    spawnSync('git', ['init', '-q'], { cwd: root });
    const { client } = await connect({ root });
    const { tools } = await client.listTools();
    const declared = tools.filter((t) => t.outputSchema).map((t) => t.name);
    expect(declared.sort()).toEqual([
      'check_process_health',
      'git_status',
      'grep',
      'list_directory',
      'system_metrics_snapshot',
      'web_search',
    ]);
    // callTool validates structuredContent against the listed outputSchema (it throws if it does not match).
    const listing = await client.callTool({ name: 'list_directory', arguments: { path: '.' } });
    expect(listing.isError).toBe(false);
    const value = listing.structuredContent as { entries: { name: string }[]; truncated: boolean };
    expect(value.truncated).toBe(true);
    expect(value.entries.length).toBeGreaterThan(100);
    expect(value.entries.length).toBeLessThan(1500);
    expect(value.entries[0]?.name).toMatch(/^0000-/); // the first entries, in order
    expect(JSON.parse(text(listing))).toEqual(value); // the text is the same JSON, whole
    expect(Buffer.byteLength(text(listing))).toBeLessThanOrEqual(102_400);
    const status = await client.callTool({ name: 'git_status', arguments: {} });
    expect(status.isError).toBe(false);
    const st = status.structuredContent as { untracked: string[]; truncated?: boolean };
    expect(st.truncated).toBe(true);
    expect(st.untracked.length).toBeGreaterThan(100);
    expect(JSON.parse(text(status))).toEqual(st);
    // grep: text with context for the model, the matches alone as structured content.
    writeFileSync(path.join(root, 'notes.md'), 'alpha\nneedle one\nbeta\nneedle two\n');
    const found = await client.callTool({
      name: 'grep',
      arguments: { pattern: 'needle', path: 'notes.md', context: 1 },
    });
    expect(found.isError).toBe(false);
    expect(text(found)).toContain('notes.md-1- alpha');
    expect(found.structuredContent).toEqual({
      matches: [
        { path: 'notes.md', line: 2, text: 'needle one' },
        { path: 'notes.md', line: 4, text: 'needle two' },
      ],
      truncated: false,
    });
    const none = await client.callTool({
      name: 'grep',
      arguments: { pattern: 'absent-word', path: 'notes.md' },
    });
    expect(none.structuredContent).toEqual({ matches: [], truncated: false });
    // 2,000 long matching lines: the structured answer is cut by whole matches to the output limit.
    writeFileSync(path.join(root, 'many.txt'), `${`needle ${'x'.repeat(200)}\n`.repeat(2000)}`);
    const many = await client.callTool({
      name: 'grep',
      arguments: { pattern: 'needle', path: 'many.txt', max_results: 2000 },
    });
    const answer = many.structuredContent as { matches: unknown[]; truncated: boolean };
    expect(answer.truncated).toBe(true);
    expect(answer.matches.length).toBeGreaterThan(100);
    expect(Buffer.byteLength(JSON.stringify(answer))).toBeLessThanOrEqual(102_400);
    const metrics = await client.callTool({ name: 'system_metrics_snapshot', arguments: {} });
    expect(metrics.structuredContent).toMatchObject({ cpu: { cores: expect.any(Number) } });
    const health = await client.callTool({
      name: 'check_process_health',
      arguments: { pids: [process.pid] },
    });
    expect(health.structuredContent).toMatchObject({ processes: [{ pid: process.pid, running: true }] });
  });

  it('tools/call goes through the pipeline: results, isError, structured content, sandbox escapes refused', async () => {
    const root = makeTempDir('toolgate-mcp-');
    writeFileSync(path.join(root, 'a.txt'), 'hello\n');
    const { client } = await connect({ root });
    const ok = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
    expect(ok.isError).toBe(false);
    expect(text(ok)).toBe('hello\n');
    const listing = await client.callTool({ name: 'list_directory', arguments: { path: '.' } });
    expect(listing.structuredContent).toMatchObject({
      path: '.',
      entries: [{ name: 'a.txt', type: 'file' }],
    });
    const outside = await client.callTool({ name: 'read_file', arguments: { path: '../../etc/passwd' } });
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/read_file failed: .*"\.\." component/);
    const bad = await client.callTool({ name: 'read_file', arguments: { path: 5 } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/invalid arguments/);
    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    expect(text(unknown)).toMatch(/unknown tool/);
  });

  it('approvals via elicitation: yes runs the call, no denies it', async () => {
    const root = makeTempDir('toolgate-mcp-');
    const yes = await connect({ root, elicit: () => 'yes' });
    const written = await yes.client.callTool({
      name: 'write_file',
      arguments: { path: 'y.txt', content: 'Y' },
    });
    expect(written.isError).toBe(false);
    expect(yes.asked[0]).toMatch(/write_file: Create y\.txt/);
    expect(readFileSync(path.join(root, 'y.txt'), 'utf8')).toBe('Y');
    const no = await connect({ root, elicit: () => 'no' });
    const denied = await no.client.callTool({
      name: 'write_file',
      arguments: { path: 'n.txt', content: 'N' },
    });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toMatch(/denied/);
    expect(existsSync(path.join(root, 'n.txt'))).toBe(false);
    const declined = await connect({ root, elicit: () => 'decline' });
    const d = await declined.client.callTool({
      name: 'write_file',
      arguments: { path: 'd.txt', content: 'D' },
    });
    expect(d.isError).toBe(true);
    // Says what happened (without claiming a person saw it) and how to allow it without asking.
    expect(text(d)).toMatch(
      /^write_file failed: denied\. To let it run without asking: add "write_file" to \[tools\.approval\] allowlist in toolgate\.toml .*Why: the MCP client declined the approval request/,
    );
    expect(existsSync(path.join(root, 'd.txt'))).toBe(false);
  });

  it("a host's own injected argument (gemini-cli's wait_for_previous) is taken out and journaled; any other unknown one is still an error", async () => {
    const root = makeTempDir('toolgate-mcp-');
    writeFileSync(path.join(root, 'a.txt'), 'hello\n');
    const journal = path.join(makeTempDir('toolgate-mcp-j-'), 'j.db');
    const { client } = await connect({ root, args: ['--journal', journal] });
    const ok = await client.callTool({
      name: 'read_file',
      arguments: { path: 'a.txt', wait_for_previous: true },
    });
    expect(ok.isError).toBe(false);
    expect(text(ok)).toBe('hello\n');
    const bad = await client.callTool({
      name: 'read_file',
      arguments: { path: 'a.txt', wait_for_next: true },
    });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/unknown parameter "wait_for_next"/);
    await client.close();
    const j = SqliteJournal.open(journal);
    try {
      const [, first] = j.recentBatches(5);
      const record = first ? j.batch(first.id) : undefined;
      expect(record?.calls[0]?.arguments).toEqual({ path: 'a.txt' });
      const assistant = j.messages(record?.session ?? '').find((m) => m.role === 'assistant');
      expect(assistant?.content).toMatchObject({ hostArguments: { wait_for_previous: true } });
    } finally {
      j.close();
    }
  });

  it('without elicitation an ask is a denial that names the config line that would allow it', async () => {
    const root = makeTempDir('toolgate-mcp-');
    const { client } = await connect({ root });
    const r = await client.callTool({ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(
      /^write_file failed: denied\. To let it run without asking: add "write_file" to \[tools\.approval\] allowlist in toolgate\.toml \(none is in use: create toolgate\.toml in the workspace root\)\. Why: .*cannot ask anyone for approval.*because "write_file" has side effects/,
    );
    expect(existsSync(path.join(root, 'x.txt'))).toBe(false);
  });

  it("roots: the effective roots are the intersection with the client's, never wider", async () => {
    const base = makeTempDir('toolgate-mcp-');
    const root = path.join(base, 'project');
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    writeFileSync(path.join(root, 'top.txt'), 'top');
    writeFileSync(path.join(root, 'sub', 'inner.txt'), 'inner');
    // The client offers only project/sub: top.txt is out of reach even though toolgate was given project.
    const narrowed = await connect({ root, roots: [path.join(root, 'sub')] });
    await new Promise((r) => setTimeout(r, 300));
    expect(
      text(await narrowed.client.callTool({ name: 'read_file', arguments: { path: 'inner.txt' } })),
    ).toBe('inner');
    expect(
      (await narrowed.client.callTool({ name: 'read_file', arguments: { path: '../top.txt' } })).isError,
    ).toBe(true);
    // A client root wider than ours does not widen ours; a disjoint one leaves nothing open.
    const wider = await connect({ root, roots: [base] });
    await new Promise((r) => setTimeout(r, 300));
    expect(text(await wider.client.callTool({ name: 'read_file', arguments: { path: 'top.txt' } }))).toBe(
      'top',
    );
    const disjoint = await connect({ root, roots: [makeTempDir('toolgate-other-')] });
    await new Promise((r) => setTimeout(r, 300));
    const refused = await disjoint.client.callTool({ name: 'read_file', arguments: { path: 'top.txt' } });
    expect(text(refused)).toMatch(/do not overlap/);
  });

  it('progress notifications stream run_command output; cancellation stops the call and its processes', async () => {
    const root = makeTempDir('toolgate-mcp-');
    const toml =
      '[tools.approval]\ndenylist = []\n[tools.run_command]\nallow = ["echo", "sleep", "sh gen.sh", "sh mix.sh"]\n';
    const { client, wire } = await connect({ root, toml });
    const streamed = await client.callTool(
      { name: 'run_command', arguments: { command: 'echo one; sleep 0.2; echo two' } },
      undefined,
      { onprogress: () => {} }, // asks for progress (read off the wire: see connect)
    );
    expect(text(streamed)).toBe('one\ntwo\n');
    expect(progressOfLastCall(wire).join('')).toBe('one\ntwo\n');
    // 200,000 characters: the result is capped, the progress carries every one, in order.
    writeFileSync(
      path.join(root, 'gen.sh'),
      'i=0; while [ $i -lt 20000 ]; do echo abcdefghi; i=$((i+1)); done\n',
    );
    const long = await client.callTool(
      { name: 'run_command', arguments: { command: 'sh gen.sh' } },
      undefined,
      { onprogress: () => {} },
    );
    expect(long.isError).toBe(false);
    const big = progressOfLastCall(wire);
    expect(big.join('')).toBe('abcdefghi\n'.repeat(20_000));
    expect(big.length).toBeLessThan(50); // coalesced, not one notification per read
    // Quotes, backslashes and tabs (plain ASCII: written without JSON.stringify), then a non-ASCII
    // line (the ordinary way): every character arrives as it was printed.
    writeFileSync(
      path.join(root, 'mix.sh'),
      `i=0; while [ $i -lt 6000 ]; do printf 'say "hi" \\\\ back\\ttab\\n'; i=$((i+1)); done\nprintf 'caf\\303\\251\\n'\n`,
    );
    const mixed = await client.callTool(
      { name: 'run_command', arguments: { command: 'sh mix.sh' } },
      undefined,
      { onprogress: () => {} },
    );
    expect(mixed.isError).toBe(false);
    expect(progressOfLastCall(wire).join('')).toBe(`${'say "hi" \\ back\ttab\n'.repeat(6000)}caf\u00e9\n`);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await expect(
      client.callTool({ name: 'run_command', arguments: { command: 'sleep 351' } }, undefined, {
        signal: controller.signal,
      }),
    ).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 500));
    expect(spawnSync('pgrep', ['-f', 'sleep 351']).stdout.toString().trim()).toBe('');
  });

  it('the client closing its end while an approval waits on it: the call is denied at once, and the server exits', async () => {
    const root = makeTempDir('toolgate-mcp-');
    const server = spawn(process.execPath, [BIN, 'mcp', '--no-journal'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const lines: Record<string, unknown>[] = [];
    let buffered = '';
    let onLine = () => {};
    server.stdout.setEncoding('utf8');
    server.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        lines.push(JSON.parse(buffered.slice(0, end)));
        buffered = buffered.slice(end + 1);
        onLine();
      }
    });
    const line = (match: (l: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const check = () => {
          const found = lines.find(match);
          if (found) resolve(found);
        };
        onLine = check;
        check();
      });
    const send = (m: unknown) => server.stdin.write(`${JSON.stringify(m)}\n`);
    const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { elicitation: {} },
        clientInfo: { name: 't', version: '1' },
      },
    });
    await line((l) => l.id === 0);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
    });
    await line((l) => l.method === 'elicitation/create');
    const closedAt = Date.now();
    server.stdin.end();
    const answer = await line((l) => l.id === 1);
    expect(text(answer.result)).toMatch(/closed its connection before answering the approval request/);
    expect(await exited).toBe(0);
    expect(Date.now() - closedAt).toBeLessThan(10_000); // not the SDK's 60-second request timeout
    expect(existsSync(path.join(root, 'x.txt'))).toBe(false);
  });
});
