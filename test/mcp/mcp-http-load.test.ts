import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { trustProject } from '../cli/run-cli.js';
import { killMcpHttpServers, startMcpHttp } from '../helpers/mcp-http-server.js';
import { makeTempDir } from '../helpers/workspace.js';

afterEach(killMcpHttpServers);

const TOML = [
  '[tools.approval]',
  'allowlist = ["write_file"]',
  'denylist = []',
  '[tools.run_command]',
  'allow = ["echo", "sleep"]',
  '',
].join('\n');

/** A project to read and search (journal on: the default, `.toolgate/journal.db`), one folder per session. */
function project(sessions: number): string {
  const root = makeTempDir('toolgate-mcp-load-');
  writeFileSync(path.join(root, 'toolgate.toml'), TOML);
  trustProject(root); // a project's own config applies in full once trusted (issue #29 §6)
  for (let f = 0; f < 10; f++) {
    mkdirSync(path.join(root, 'code', `d${f % 3}`), { recursive: true });
    writeFileSync(path.join(root, 'code', `d${f % 3}`, `f${f}.txt`), `file ${f}\nneedle-${f % 2}\n`);
  }
  for (let k = 0; k < sessions; k++) mkdirSync(path.join(root, `s${k}`));
  return root;
}

/** A client of the server's owner: it sends the server's bearer token (issue #30 §6). */
async function connect(server: { url: string; headers: Record<string, string> }): Promise<Client> {
  const client = new Client({ name: 'load', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
  );
  return client;
}

/** One MCP tools/call. */
type Call = { name: string; arguments: Record<string, unknown> };

const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text ?? '';

/** Session k's i-th call and the text its answer must be (a read of its own file: its last write). */
function mixedCall(k: number, i: number, written: Map<string, string>): { call: Call; want: string } {
  const own = `s${k}/w${i % 3}.txt`;
  switch (i % 5) {
    case 0: {
      const content = `session ${k} call ${i}\n`;
      written.set(own, content);
      return { call: { name: 'write_file', arguments: { path: own, content, overwrite: true } }, want: '' };
    }
    case 1: {
      const last = written.get(own);
      if (last !== undefined) return { call: { name: 'read_file', arguments: { path: own } }, want: last };
      return {
        call: { name: 'read_file', arguments: { path: 'code/d0/f0.txt' } },
        want: 'file 0\nneedle-0\n',
      };
    }
    case 2:
      return {
        call: { name: 'grep', arguments: { pattern: `needle-${i % 2}`, path: 'code' } },
        want: '', // counted below: five files hold each needle
      };
    case 3:
      return {
        call: { name: 'run_command', arguments: { command: `echo s${k}-c${i}` } },
        want: `s${k}-c${i}\n`,
      };
    default:
      return {
        call: { name: 'read_file', arguments: { path: `code/d${i % 3}/f${i % 3}.txt` } },
        want: `file ${i % 3}\nneedle-${(i % 3) % 2}\n`,
      };
  }
}

describe('toolgate mcp over HTTP under concurrent sessions, journal on (issue #14 item 6)', () => {
  it('10 sessions × 30 mixed calls at once: no error, each session gets its own answers in order, every call journaled with its result, no batch left incomplete', async () => {
    const sessions = 10;
    const calls = 30;
    const root = project(sessions);
    const server = await startMcpHttp(root, '0');
    const clients = await Promise.all(Array.from({ length: sessions }, () => connect(server)));
    // What each session sent and got, in its own order.
    const sent: { call: Call; text: string }[][] = clients.map(() => []);
    const problems: string[] = [];
    await Promise.all(
      clients.map(async (client, k) => {
        const written = new Map<string, string>();
        for (let i = 0; i < calls; i++) {
          const { call, want } = mixedCall(k, i, written);
          const r = await client.callTool({ name: call.name, arguments: call.arguments });
          const text = textOf(r);
          sent[k]?.push({ call, text });
          const ok =
            call.name === 'grep'
              ? text.split('\n').filter((l) => l.includes('needle-')).length === 5
              : call.name === 'write_file' || text === want;
          if (r.isError || !ok) problems.push(`session ${k} call ${i} ${call.name}: ${text.slice(0, 200)}`);
        }
      }),
    );
    expect(problems).toEqual([]);

    // The server is still running: every result handed out is already journaled, its batch complete.
    const journal = SqliteJournal.open(path.join(root, '.toolgate', 'journal.db'));
    try {
      expect(journal.incompleteBatches()).toEqual([]);
      const batches = journal.recentBatches(10_000).map((b) => journal.batch(b.id));
      const bySession = new Map<string, { index: number; name: string; args: unknown; text?: string }[]>();
      for (const batch of batches) {
        expect(batch?.status).toBe('complete');
        for (const c of batch?.calls ?? []) {
          expect(c.status).toBe('done');
          expect(c.result?.ok).toBe(true);
          const list = bySession.get(batch?.session ?? '') ?? [];
          bySession.set(batch?.session ?? '', list);
          list.push({
            index: Number(c.id.replace('mcp-', '')),
            name: c.name,
            args: c.arguments,
            ...(c.result ? { text: c.result.content } : {}),
          });
        }
      }
      expect(bySession.size).toBe(sessions);
      // Each journal session is one client's: its calls mcp-1 … mcp-30 are that client's calls in
      // the order it made them, each with the answer the client got.
      const matched = new Set<number>();
      for (const rows of bySession.values()) {
        rows.sort((a, b) => a.index - b.index);
        expect(rows.map((r) => r.index)).toEqual(Array.from({ length: calls }, (_, i) => i + 1));
        const k = Number(/"s(\d+)\//.exec(JSON.stringify(rows.map((r) => r.args)))?.[1]);
        matched.add(k);
        expect(rows.map((r) => [r.name, r.args, r.text])).toEqual(
          (sent[k] ?? []).map((s) => [s.call.name, s.call.arguments, s.text]),
        );
      }
      expect(matched.size).toBe(sessions);
    } finally {
      journal.close();
    }
    await Promise.all(clients.map((c) => c.close()));
  });

  it('a slow run_command holds up no other call: 20 reads and 5 writes in another session, and 5 reads in its own, finish while it sleeps', async () => {
    const root = project(2);
    writeFileSync(path.join(root, 'a.txt'), 'quick\n');
    const server = await startMcpHttp(root, '0');
    const [slowClient, quickClient] = await Promise.all([connect(server), connect(server)]);
    if (!slowClient || !quickClient) throw new Error('no clients');
    let slowDone = false;
    let running!: () => void;
    const started = new Promise<void>((resolve) => {
      running = resolve;
    });
    // The command's first output arrives as progress while it sleeps: it is running from then on.
    const slow = slowClient
      .callTool({ name: 'run_command', arguments: { command: 'echo started; sleep 2' } }, undefined, {
        onprogress: () => running(),
        timeout: 20_000,
      })
      .then((r) => {
        slowDone = true;
        return r;
      });
    await started;
    const quick: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await quickClient.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
      expect(textOf(r)).toBe('quick\n');
      quick.push(slowDone);
    }
    for (let i = 0; i < 5; i++) {
      const r = await quickClient.callTool({
        name: 'write_file',
        arguments: { path: `s1/q${i}.txt`, content: `${i}\n` },
      });
      expect(r.isError).toBe(false);
      quick.push(slowDone);
    }
    // The slow call's own session is not held up either (a host may send calls side by side).
    for (let i = 0; i < 5; i++) {
      const r = await slowClient.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
      expect(textOf(r)).toBe('quick\n');
      quick.push(slowDone);
    }
    // Every quick call was answered before the slow one ended; the slow one still succeeds.
    expect(quick).toEqual(Array.from({ length: 30 }, () => false));
    // Meanwhile the journal shows the slow call running, the quick ones done.
    const journal = SqliteJournal.open(path.join(root, '.toolgate', 'journal.db'));
    try {
      const open = journal.incompleteBatches();
      expect(open.map((b) => b.calls.map((c) => [c.name, c.status]))).toEqual([[['run_command', 'running']]]);
      const r = await slow;
      expect(r.isError).toBe(false);
      expect(textOf(r)).toBe('started\n');
      expect(journal.incompleteBatches()).toEqual([]);
    } finally {
      journal.close();
    }
    await Promise.all([slowClient.close(), quickClient.close()]);
  });

  it('a write waiting on a slow disk holds up no other session: with fdatasync taking 1.5 s (strace), 20 reads finish during one write', async () => {
    const root = project(1);
    writeFileSync(path.join(root, 'a.txt'), 'quick\n');
    // strace delays every fdatasync (the journal's flush of its WAL before a side effect) by 1.5 s.
    const delay = ['-f', '-qq', '--seccomp-bpf', '-o', '/dev/null', '-e', 'trace=fdatasync'];
    const started = await startMcpHttp(root, '0', {
      wrap: ['strace', ...delay, '-e', 'inject=fdatasync:delay_enter=1500000'],
    }).catch((error: Error) => error.message);
    if (typeof started === 'string') {
      // No strace (or no ptrace) here: say so; CI installs strace and must run this.
      expect(process.env.CI, `CI must run the slow-disk test: ${started}`).not.toBe('true');
      console.info(`slow-disk test not run: ${started}`);
      return;
    }
    const [writer, reader] = await Promise.all([connect(started), connect(started)]);
    if (!writer || !reader) throw new Error('no clients');
    // Both sessions have been journaled (a read each) before the write.
    for (const client of [reader, writer]) {
      expect(textOf(await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } }))).toBe(
        'quick\n',
      );
    }
    let writeDone = false;
    const write = writer
      .callTool({ name: 'write_file', arguments: { path: 's0/w.txt', content: 'slow disk\n' } }, undefined, {
        timeout: 20_000,
      })
      .then((r) => {
        writeDone = true;
        return r;
      });
    // The write is `running` (committed just before its flush starts) before the reads begin.
    const journal = SqliteJournal.open(path.join(root, '.toolgate', 'journal.db'));
    try {
      const isRunning = () =>
        journal
          .incompleteBatches()
          .some((b) => b.calls.some((c) => c.name === 'write_file' && c.status === 'running'));
      while (!isRunning() && !writeDone) await new Promise((r) => setTimeout(r, 5));
    } finally {
      journal.close();
    }
    const quick: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      expect(textOf(await reader.callTool({ name: 'read_file', arguments: { path: 'a.txt' } }))).toBe(
        'quick\n',
      );
      quick.push(writeDone);
    }
    expect(quick).toEqual(Array.from({ length: 20 }, () => false));
    expect((await write).isError).toBe(false);
    await Promise.all([writer.close(), reader.close()]);
  });
});
