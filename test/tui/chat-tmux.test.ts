import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { REPO } from '../cli/run-cli.js';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import { type ReplayServer, requestBody, startReplayServer } from '../helpers/replay-server.js';
import { closeTmux, tmux } from '../helpers/tmux.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * `toolgate chat` in a real terminal: tmux runs the CLI in a pseudo-terminal, keys are sent as a
 * person would type them, and the screen is read back. The model is a replay server on 127.0.0.1.
 */
const BIN = path.join(REPO, 'bin', 'toolgate.js');
let server: ReplayServer | undefined;
const sessions: string[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) tmux('kill-session', '-t', s);
  await server?.close();
  server = undefined;
});

afterAll(closeTmux);
const screen = (s: string) => tmux('capture-pane', '-p', '-t', s, '-S', '-200').stdout;
const keys = (s: string, ...k: string[]) => tmux('send-keys', '-t', s, ...k);

async function waitFor(s: string, ok: (text: string) => boolean, what: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const text = screen(s);
    if (ok(text)) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${screen(s)}`);
}

/** The last two rows on screen: the input line and the status line under it. */
function bottomRows(s: string): [string, string] {
  const rows = tmux('capture-pane', '-p', '-t', s)
    .stdout.split('\n')
    .map((r) => r.trimEnd());
  while (rows.length > 0 && rows.at(-1) === '') rows.pop();
  return [rows.at(-2) ?? '', rows.at(-1) ?? ''];
}

async function exited(s: string): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (tmux('display', '-p', '-t', s, '#{pane_current_command}').stdout.trim() === 'sleep') return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

function startChat(root: string, extra: string[] = [], journal?: string): string {
  const name = `toolgate-chat-${process.pid}-${sessions.length}`;
  sessions.push(name);
  const command = [
    process.execPath,
    BIN,
    'chat',
    '--provider',
    'openai-compatible',
    '--base-url',
    `${server?.url}/v1`,
    '--model',
    'replayed',
    '--root',
    root,
    ...(journal ? ['--journal', journal] : ['--no-journal']),
    ...extra,
  ]
    .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const r = tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '140',
    '-y',
    '45',
    `cd '${REPO}' && ${command}; sleep 30`,
  );
  if (r.status !== 0) throw new Error(`tmux could not start: ${r.stderr}`);
  return name;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const write = (id: string, file: string) => ({
  id,
  name: 'write_file',
  args: JSON.stringify({ path: file, content: `${id}\n` }),
});

describe('toolgate chat in a real terminal (tmux)', () => {
  it('approve, deny, pick and cancel, with the calls and their outcome on screen', async () => {
    const root = makeTempDir('toolgate-tmux-');
    server = await startReplayServer([
      { body: chatStream({ text: 'Writing one.', calls: [write('w1', 'one.txt')] }) },
      { body: textAnswer('openai-compatible', 'Wrote one.') },
      { body: chatStream({ calls: [write('w2', 'two.txt')] }) },
      { body: textAnswer('openai-compatible', 'Left two alone.') },
      { body: chatStream({ calls: [write('w3', 'three.txt'), write('w4', 'four.txt')] }) },
      { body: textAnswer('openai-compatible', 'Picked one of two.') },
      { body: chatStream({ text: 'Thinking for a long time', finish: null, done: false }), hang: true },
    ]);
    const s = startChat(root);
    await waitFor(s, (t) => t.includes('enter send'), 'the chat to start');

    keys(s, 'make one.txt', 'Enter');
    await waitFor(s, (t) => t.includes('Approval needed'), 'the approval prompt');
    keys(s, 'a');
    await waitFor(s, (t) => t.includes('Wrote one.'), 'the answer after approval');
    expect(readFileSync(path.join(root, 'one.txt'), 'utf8')).toBe('w1\n');

    keys(s, 'make two.txt', 'Enter');
    await waitFor(
      s,
      (t) => (t.match(/Approval needed/g) ?? []).length >= 1 && t.includes('two.txt'),
      'the second prompt',
    );
    keys(s, 'd');
    // The answer can be drawn a frame before the batch moves into the transcript: wait for both.
    const denied = await waitFor(
      s,
      (t) => t.includes('Left two alone.') && /⊘ write_file .*denied/.test(t),
      'the answer after denial',
    );
    expect(denied.indexOf('⊘ write_file')).toBeLessThan(denied.indexOf('Left two alone.'));
    expect(existsSync(path.join(root, 'two.txt'))).toBe(false);

    keys(s, 'make three and four', 'Enter');
    await waitFor(s, (t) => t.includes('Approval needed (2 calls)'), 'the two-call prompt');
    keys(s, 'p');
    await waitFor(s, (t) => t.includes('[ ]'), 'pick mode');
    keys(s, 'Space');
    await waitFor(s, (t) => t.includes('[x]'), 'the first call chosen');
    keys(s, 'Enter');
    await waitFor(s, (t) => t.includes('Picked one of two.'), 'the answer after picking');
    expect(existsSync(path.join(root, 'three.txt'))).toBe(true);
    expect(existsSync(path.join(root, 'four.txt'))).toBe(false);

    keys(s, 'think hard', 'Enter');
    await waitFor(s, (t) => t.includes('Thinking for a long time'), 'the streaming text');
    keys(s, 'Escape');
    await waitFor(s, (t) => t.includes('cancelled; nothing more was run or sent'), 'the cancel');
    expect(server.requests).toHaveLength(7);

    keys(s, '/quit', 'Enter');
    // The CLI exits; the pane's shell moves on to the `sleep` that keeps it open.
    expect(await exited(s)).toBe(true);
  });

  it('Esc at the approval prompt cancels the turn: nothing in the batch runs, the model is not resumed', async () => {
    const root = makeTempDir('toolgate-tmux-');
    server = await startReplayServer([
      { body: chatStream({ calls: [write('w1', 'one.txt')] }) },
      { body: textAnswer('openai-compatible', 'Must not be asked for.') },
    ]);
    const s = startChat(root);
    await waitFor(s, (t) => t.includes('enter send'), 'the chat to start');
    keys(s, 'make one.txt', 'Enter');
    await waitFor(s, (t) => t.includes('Approval needed'), 'the approval prompt');
    expect(bottomRows(s)[1]).toMatch(/esc cancel the turn/);
    keys(s, 'Escape');
    const after = await waitFor(
      s,
      (t) => t.includes('cancelled; nothing more was run or sent'),
      'the cancel',
    );
    expect(after).toMatch(/⊘ write_file .*denied: the batch was cancelled/);
    expect(bottomRows(s)[1]).toMatch(/enter send/);
    await new Promise((r) => setTimeout(r, 200));
    expect(server.requests).toHaveLength(1);
    expect(existsSync(path.join(root, 'one.txt'))).toBe(false);
  });

  it('the status line never wraps, from 40 to 200 columns; /help is answered locally', async () => {
    const root = makeTempDir('toolgate-tmux-');
    server = await startReplayServer([
      { body: chatStream({ text: 'Thinking for a long time', finish: null, done: false }), hang: true },
    ]);
    const s = startChat(root); // the title carries a whole session id: 36 columns
    await waitFor(s, (t) => t.includes('enter send'), 'the chat to start');
    const at = async (columns: number, must: RegExp) => {
      tmux('resize-window', '-t', s, '-x', String(columns), '-y', '45');
      for (let i = 0; i < 100; i++) {
        const [input, status] = bottomRows(s);
        if (/^[›⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s*$/.test(input) && must.test(status) && [...status].length < columns) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`at ${columns} columns the status line wrapped or is wrong:\n${screen(s)}`);
    };
    for (const columns of [40, 50, 60, 80, 100, 110, 120, 140, 160, 200])
      await at(columns, /enter send.*\/help/);
    await at(200, /session [0-9a-f-]{36}/);

    await at(80, /enter send/);
    keys(s, '/help', 'Enter');
    await waitFor(s, (t) => t.includes('/tool <id> <result>'), 'the help');
    expect(server.requests).toHaveLength(0);

    keys(s, 'think hard', 'Enter');
    await waitFor(s, (t) => t.includes('Thinking for a long time'), 'the streaming text');
    for (const columns of [40, 100, 120, 200]) await at(columns, /esc cancel/);
    keys(s, 'Escape');
    await waitFor(s, (t) => t.includes('cancelled; nothing more'), 'the cancel');
    await at(120, /enter send/);
  });

  it('the terminal closing at an approval prompt withdraws the question: the batch ends denied, nothing is left to recover', async () => {
    const root = makeTempDir('toolgate-tmux-');
    const db = path.join(root, 'journal.db');
    server = await startReplayServer([{ body: chatStream({ calls: [write('w1', 'never.txt')] }) }]);
    const chat = startChat(root, ['--session', 'hup'], db);
    await waitFor(chat, (t) => t.includes('enter send'), 'the chat');
    keys(chat, 'make never.txt', 'Enter');
    await waitFor(chat, (t) => t.includes('Approval needed'), 'the approval prompt');
    const shell = Number(tmux('display', '-p', '-t', chat, '#{pane_pid}').stdout.trim());
    tmux('kill-session', '-t', chat); // SIGHUP
    for (let i = 0; i < 100 && alive(shell); i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500)); // the chat process itself settles, then exits
    const journal = SqliteJournal.open(db);
    try {
      expect(journal.incompleteBatches()).toEqual([]);
      const [batch] = journal.recentBatches(5);
      const calls = batch ? journal.batch(batch.id)?.calls : undefined;
      expect(calls?.map((c) => [c.status, c.result?.error?.type])).toEqual([['denied', 'Denied']]);
      expect(calls?.[0]?.result?.error?.message).toMatch(/the batch was cancelled/);
    } finally {
      journal.close();
    }
    expect(existsSync(path.join(root, 'never.txt'))).toBe(false);
    expect(server.requests).toHaveLength(1); // the model was not resumed
  });

  it('a batch left at an approval prompt by a crash: a new session starts at once with a notice; its own session is offered recovery', async () => {
    const root = makeTempDir('toolgate-tmux-');
    const db = path.join(root, 'journal.db');
    server = await startReplayServer([
      { body: chatStream({ calls: [write('w1', 'late.txt')] }) },
      { body: textAnswer('openai-compatible', 'Hello again.') },
    ]);
    const first = startChat(root, ['--session', 'first'], db);
    await waitFor(first, (t) => t.includes('enter send'), 'the first chat');
    keys(first, 'make late.txt', 'Enter');
    await waitFor(first, (t) => t.includes('Approval needed'), 'the approval prompt');
    const shell = Number(tmux('display', '-p', '-t', first, '#{pane_pid}').stdout.trim());
    const chatPid = Number(spawnSync('pgrep', ['-P', String(shell)], { encoding: 'utf8' }).stdout.trim());
    process.kill(chatPid, 'SIGKILL'); // toolgate dies under the question, with no chance to settle
    for (let i = 0; i < 100 && alive(chatPid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(chatPid)).toBe(false);
    tmux('kill-session', '-t', first);
    const journal = SqliteJournal.open(db);
    try {
      expect(journal.incompleteBatches().map((b) => [b.session, b.status])).toEqual([
        ['first', 'awaiting_approval'],
      ]);
    } finally {
      journal.close();
    }

    const second = startChat(root, [], db); // a new session
    const opened = await waitFor(second, (t) => t.includes('enter send'), 'the second chat');
    expect(opened).not.toMatch(/\[r\] resume/);
    expect(opened).toContain(
      `1 unfinished batch of another session waits in the journal: see \`toolgate recover --journal ${db}\``,
    );
    keys(second, 'hello', 'Enter');
    await waitFor(second, (t) => t.includes('Hello again.'), 'an answer in the new session');
    keys(second, '/quit', 'Enter');
    expect(await exited(second)).toBe(true);

    const again = startChat(root, ['--session', 'first'], db); // the interrupted session itself
    const offered = await waitFor(again, (t) => t.includes('[r] resume'), 'the recovery prompt');
    expect(offered).toMatch(/write_file \[awaiting_approval\]/);
    expect(bottomRows(again)[1]).toMatch(/r resume · d discard/);
    keys(again, 'd');
    await waitFor(again, (t) => t.includes('discarded the results of 1'), 'the discard');
    expect(existsSync(path.join(root, 'late.txt'))).toBe(false);
    expect(server.requests).toHaveLength(2);
    const after = SqliteJournal.open(db);
    try {
      expect(after.incompleteBatches()).toEqual([]);
    } finally {
      after.close();
    }
  });

  it('parse-only: pending calls listed with their ids; /tool supplies a result and the model continues', async () => {
    const root = makeTempDir('toolgate-tmux-');
    const config = path.join(root, 'parse-only.toml');
    writeFileSync(
      config,
      '[tools]\nmode = "parse_only"\n\n[[tools.definitions]]\nname = "lookup"\ndescription = "ask a person"\nparameters = { type = "object", properties = { q = { type = "string" } } }\n',
    );
    server = await startReplayServer([
      { body: chatStream({ calls: [{ id: 'm1', name: 'lookup', args: '{"q":"answer"}' }] }) },
      { body: textAnswer('openai-compatible', 'The answer is 42.') },
    ]);
    const s = startChat(root, ['--config', config]);
    await waitFor(s, (t) => t.includes('enter send'), 'the chat to start');
    keys(s, 'what is the answer?', 'Enter');
    const pending = await waitFor(s, (t) => t.includes('wait for your results'), 'the parse-only panel');
    expect(pending).toMatch(/m1 lookup/);
    keys(s, '/tool m1 42', 'Enter');
    await waitFor(s, (t) => t.includes('The answer is 42.'), 'the answer');
    const messages = (requestBody(server, 1) as { messages: { role: string; content: string }[] }).messages;
    expect(messages.find((m) => m.role === 'tool')?.content).toBe('42');
  });
});
