import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import { type ReplayServer, requestBody, startReplayServer } from '../helpers/replay-server.js';
import { replayModelArgs, runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Waits (bounded) until the journal written by another process holds `n` streamed calls. */
async function streamedCalls(file: string, n: number): Promise<string[]> {
  let ids: string[] = [];
  for (let i = 0; i < 200 && ids.length < n; i++) {
    if (existsSync(file)) {
      const reader = SqliteJournal.open(file);
      ids = reader.incompleteBatches().flatMap((b) => b.calls.map((c) => c.id));
      reader.close();
    }
    if (ids.length < n) await new Promise((r) => setTimeout(r, 25));
  }
  return ids;
}

describe('IT-JRN-01: a crash in the middle of a streamed turn is recovered on the next start', () => {
  it('calls received but not yet run survive SIGKILL; the next run refuses until a person settles the batch', async () => {
    const root = makeTempDir('toolgate-crash-');
    const journal = path.join(root, '.toolgate', 'journal.db');
    const calls = [
      { id: 'call_w', name: 'write_file', args: '{"path":"out.txt","content":"hello"}' },
      { id: 'call_r', name: 'read_file', args: '{"path":"out.txt"}' },
    ];
    // The response stalls after the calls (no terminator): the process is killed mid-turn.
    server = await startReplayServer([
      { body: chatStream({ text: 'Writing.', calls, done: false }), hang: true },
    ]);
    const common = [...replayModelArgs(server.url), '--session', 'S', '--root', root, '--approve', 'none'];
    const crashed = await runCliAsync(['run', 'write then read', ...common], {
      onStart: (child) => {
        void streamedCalls(journal, 2).then(() => child.kill('SIGKILL'));
      },
    });
    expect(crashed.signal).toBe('SIGKILL');
    expect(existsSync(path.join(root, 'out.txt'))).toBe(false);

    const listed = await runCliAsync(['recover', '--json', '--root', root]);
    const batches = JSON.parse(listed.stdout) as {
      id: string;
      session: string;
      calls: { id: string; status: string }[];
    }[];
    expect(batches).toHaveLength(1);
    expect(batches[0]?.session).toBe('S');
    expect(batches[0]?.calls.map((c) => [c.id, c.status])).toEqual([
      ['call_w', 'planned'],
      ['call_r', 'planned'],
    ]);

    await server.close();
    server = await startReplayServer([{ body: textAnswer('openai-compatible', 'welcome back') }]);
    const common2 = common.map((a) => (a.startsWith('http://') ? `${server?.url}/v1` : a));
    const refused = await runCliAsync(['run', 'continue', ...common2]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`toolgate recover --discard ${batches[0]?.id}`);
    expect(server.requests).toHaveLength(0);

    // FR-RES-04c: recovery never re-runs anything; discarding keeps the calls visible, results failed.
    const discarded = await runCliAsync(['recover', '--discard', batches[0]?.id as string, '--root', root]);
    expect(discarded.status).toBe(0);
    expect(existsSync(path.join(root, 'out.txt'))).toBe(false);

    const resumed = await runCliAsync(['run', 'continue', ...common2]);
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    expect(resumed.stdout.trim()).toBe('welcome back');
    const sent = (requestBody(server, 0) as { messages: { role: string; content: string }[] }).messages;
    expect(sent.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'write then read',
      'continue',
    ]);
  });
});
