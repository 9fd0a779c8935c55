import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import { requestBody, startReplayServer } from '../helpers/replay-server.js';
import { replayModelArgs, runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';
import { REPO, trustProject } from './run-cli.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');
const noKeys = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '' };
type Result = { ok: boolean; content: string; error?: { type: string } };

/** The five new tool families (web, memory, notes, todos, vault) through the real CLI: exec, mcp and run. */
describe('the new tool families through exec, mcp and run (issue #15)', () => {
  let site: http.Server;
  let port = 0;
  const root = makeTempDir('toolgate-catalogue-cli-');
  const vault = makeTempDir('toolgate-catalogue-vault-');
  beforeAll(async () => {
    mkdirSync(`${vault}/tables`);
    writeFileSync(`${vault}/tables/brest.txt`, 'Brest 06:12 4.8 m\n');
    site = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/search') {
        // SearXNG's JSON API, as web_search's `searxng` provider reads it
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            query: url.searchParams.get('q'),
            results: [
              { url: 'https://tides.example/brest', title: 'Brest tides', content: 'High and low water.' },
            ],
          }),
        );
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('High water at Brest: 06:12.');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    port = (site.address() as AddressInfo).port;
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      `[tools.approval]\nallowlist = ["web_fetch", "web_search"]\n[tools.web]\nallow_private = ["127.0.0.1:${port}"]\n` +
        `[tools.web.search]\nprovider = "searxng"\nbase_url = "http://127.0.0.1:${port}"\n` +
        `[tools.vault]\nroots = ["${vault}"]\n` +
        `[[tools.policy.rules]]\ntool = "vault_copyto"\naction = "allow"\n` +
        `conditions = [{ param = "source", operator = "startsWith", value = "tables" }]\n`,
    );
    trustProject(root); // a project's own config applies in full once trusted (issue #29 §6)
  });
  afterAll(() => site.close());

  const exec = async (calls: unknown[], ...flags: string[]) => {
    const run = await runCliAsync(['exec', ...flags], { cwd: root, input: JSON.stringify(calls) });
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as Result[];
  };

  it('toolgate exec --user: a note saved by one user is found by that user in a later process, never by another', async () => {
    const [saved] = await exec(
      [{ id: '1', name: 'memory_save', arguments: { content: 'The boat key hangs by the chart table.' } }],
      '--user',
      'alice',
    );
    const id = (JSON.parse(saved?.content ?? '{}') as { note_id: string }).note_id;
    expect(id).toMatch(/^note-/);
    const search = { id: '1', name: 'memory_search', arguments: { query: 'boat key' } };
    const [mine] = await exec([search], '--user', 'alice');
    expect(JSON.parse(mine?.content ?? '[]')).toEqual([
      { text: 'The boat key hangs by the chart table.', source: 'note', score: 1, note_id: id },
    ]);
    const [theirs] = await exec([search], '--user', 'bob');
    expect(JSON.parse(theirs?.content ?? '')).toEqual([]);
  });

  it('toolgate exec: vault_copyto asks (denied with nobody to approve, unless a rule stands for it); the vault is no path for read_file', async () => {
    const [asked, standing, read] = await exec(
      [
        { id: '1', name: 'vault_copyto', arguments: { source: 'other.txt', destination: 'x.txt' } },
        { id: '2', name: 'vault_copyto', arguments: { source: 'tables', destination: 'tables' } },
        { id: '3', name: 'read_file', arguments: { path: `${vault}/tables/brest.txt` } },
      ],
      '--approve',
      'none',
    );
    expect(asked?.error?.type).toBe('Denied');
    expect(standing?.ok, standing?.content).toBe(true);
    expect(standing?.content).toMatch(/sha256 of the manifest [0-9a-f]{64}/);
    expect(readFileSync(`${root}/tables/brest.txt`, 'utf8')).toBe('Brest 06:12 4.8 m\n');
    expect(read?.error?.type).toBe('SandboxViolation');
  });

  it('toolgate exec: web_search, write_todos and memory in one batch, results in call order', async () => {
    const results = await exec(
      [
        { id: '1', name: 'web_search', arguments: { query: 'brest tides', num_results: 3 } },
        { id: '2', name: 'write_todos', arguments: { action: 'add', task: 'check the tides' } },
        { id: '3', name: 'memory', arguments: { action: 'set', key: 'port', value: 'Brest' } },
        { id: '4', name: 'memory', arguments: { action: 'get', key: 'port' } },
      ],
      '--approve',
      'none',
    );
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true]);
    expect(JSON.parse(results[0]?.content ?? '{}').results).toEqual([
      { title: 'Brest tides', url: 'https://tides.example/brest', snippet: 'High and low water.' },
    ]);
    expect(results[1]?.content).toMatch(/check the tides/);
    expect(results[3]?.content).toBe('Brest');
  });

  it('toolgate mcp: the note tools are listed with their hints; save then search over the SDK client', async () => {
    const client = new Client({ name: 't', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp', '--user', 'carol', '--config', 'toolgate.toml'],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    try {
      const { tools } = await client.listTools();
      const hints = Object.fromEntries(
        tools.filter((t) => t.name.startsWith('memory_')).map((t) => [t.name, t.annotations?.readOnlyHint]),
      );
      expect(hints).toEqual({
        memory_search: true,
        memory_save: false,
        memory_update: false,
        memory_delete: false,
      });
      const saved = await client.callTool({
        name: 'memory_save',
        arguments: { content: 'Carol prefers the north mooring.' },
      });
      expect(saved.isError).toBe(false);
      const r = await client.callTool({ name: 'memory_search', arguments: { query: 'mooring' } });
      const text = (r.content as { text: string }[])[0]?.text ?? '';
      expect(JSON.parse(text)[0]).toMatchObject({ text: 'Carol prefers the north mooring.', source: 'note' });
      // the other families over MCP too
      const textOf = (x: Awaited<ReturnType<typeof client.callTool>>) =>
        (x.content as { text: string }[])[0]?.text ?? '';
      const search = await client.callTool({ name: 'web_search', arguments: { query: 'brest' } });
      expect(search.isError).toBe(false);
      expect(textOf(search)).toContain('https://tides.example/brest');
      const todo = await client.callTool({
        name: 'write_todos',
        arguments: { action: 'add', task: 'moor north' },
      });
      expect(textOf(todo)).toMatch(/moor north/);
      const copy = await client.callTool({
        name: 'vault_copyto',
        arguments: { source: 'tables/brest.txt', destination: 'mcp-brest.txt' },
      });
      expect(copy.isError, textOf(copy)).toBe(false);
      expect(readFileSync(`${root}/mcp-brest.txt`, 'utf8')).toBe('Brest 06:12 4.8 m\n');
      // not covered by the standing rule, and this client answers no elicitation: denied with the hint
      const asked = await client.callTool({
        name: 'vault_copyto',
        arguments: { source: 'other', destination: 'o' },
      });
      expect(asked.isError).toBe(true);
      expect(textOf(asked)).toMatch(/tools\.policy\.rules/);
    } finally {
      await client.close();
    }
  });

  it('toolgate run: a model saves a note, adds a todo and fetches a page in one turn, then finds the note and its own words', async () => {
    const server = await startReplayServer([
      {
        body: chatStream({
          calls: [
            { id: 'c1', name: 'memory_save', args: '{"content":"Spring tides next week: moor deeper."}' },
            { id: 'c2', name: 'write_todos', args: '{"action":"add","task":"check the mooring lines"}' },
            { id: 'c3', name: 'web_fetch', args: JSON.stringify({ url: `http://127.0.0.1:${port}/` }) },
            { id: 'c5', name: 'web_search', args: '{"query":"brest tides"}' },
            { id: 'c6', name: 'vault_copyto', args: '{"source":"tables","destination":"run-tables"}' },
          ],
        }),
      },
      {
        body: chatStream({
          calls: [
            {
              id: 'c4',
              name: 'memory_search',
              args: '{"query":"spring tides mooring","include_conversation":true}',
            },
          ],
        }),
      },
      { body: textAnswer('openai', 'Noted.') },
    ]);
    try {
      const run = await runCliAsync(
        ['run', 'remember the tides', ...replayModelArgs(server.url), '--user', 'dan', '--session', 'R'],
        { cwd: root, env: noKeys },
      );
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('Noted.');
      const second = JSON.stringify(requestBody(server, 1));
      expect(second).toContain('note_id');
      expect(second).toContain('check the mooring lines');
      expect(second).toContain('High water at Brest: 06:12.');
      expect(second).toContain('https://tides.example/brest');
      expect(second).toMatch(/sha256 of the manifest [0-9a-f]{64}/);
      expect(readFileSync(`${root}/run-tables/brest.txt`, 'utf8')).toBe('Brest 06:12 4.8 m\n');
      const third = requestBody(server, 2) as { messages: { tool_call_id?: string; content: string }[] };
      const answer = third.messages.find((m) => m.tool_call_id === 'c4')?.content ?? '[]';
      const hits = JSON.parse(answer) as { text: string; source: string }[];
      // the note itself, and the conversation: the user's prompt, and the call that saved the note
      expect(hits[0]).toMatchObject({ text: 'Spring tides next week: moor deeper.', source: 'note' });
      const said = hits.filter((h) => h.source === 'conversation').map((h) => h.text);
      expect(said).toContain('user: remember the tides');
      expect(said.some((t) => t.startsWith('assistant: memory_save {"content":"Spring tides'))).toBe(true);
      expect(said.some((t) => t.includes('memory_search'))).toBe(false); // not the search's own call
    } finally {
      await server.close();
    }
  });
});
