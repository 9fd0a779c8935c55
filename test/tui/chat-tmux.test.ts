import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import { type ReplayServer, requestBody, startReplayServer } from '../helpers/replay-server.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * `toolgate chat` in a real terminal: tmux runs the CLI in a pseudo-terminal, keys are sent as a
 * person would type them, and the screen is read back. The model is a replay server on 127.0.0.1.
 */
const BIN = path.join(REPO, 'bin', 'toolgate.js');
let server: ReplayServer | undefined;
const sessions: string[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) spawnSync('tmux', ['kill-session', '-t', s]);
  await server?.close();
  server = undefined;
});

const tmux = (...args: string[]) => spawnSync('tmux', args, { encoding: 'utf8' });
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

function startChat(root: string, extra: string[] = []): string {
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
    '--no-journal',
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
    const denied = await waitFor(s, (t) => t.includes('Left two alone.'), 'the answer after denial');
    expect(denied).toMatch(/⊘ write_file .*denied/);
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
    for (
      let i = 0;
      i < 200 && tmux('display', '-p', '-t', s, '#{pane_current_command}').stdout.trim() !== 'sleep';
      i++
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(tmux('display', '-p', '-t', s, '#{pane_current_command}').stdout.trim()).toBe('sleep');
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
