import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { denyAll } from '../../src/core/confirmation.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { adapterFor } from '../../src/providers/adapters.js';
import { createToolgate } from '../../src/toolgate.js';
import { ChatApp } from '../../src/tui/chat-app.js';
import { ChatController } from '../../src/tui/chat-controller.js';
import { orphanBatches } from '../helpers/orphan-batches.js';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import {
  type RecordedResponse,
  type ReplayServer,
  requestBody,
  startReplayServer,
} from '../helpers/replay-server.js';
import { useWorkspace } from '../helpers/workspace.js';

const ws = useWorkspace();
let server: ReplayServer | undefined;
let unmount: (() => void) | undefined;
afterEach(async () => {
  unmount?.();
  unmount = undefined;
  await server?.close();
  server = undefined;
});

const tick = () => new Promise((r) => setTimeout(r, 30));
/** The status line: the last row drawn. */
const lastLine = (frame: string) => frame.split('\n').at(-1) ?? '';

/** Waits until the last frame satisfies `ok` (bounded), returning it. */
let frames: (() => string[]) | undefined;
async function until(
  frame: () => string | undefined,
  ok: (f: string) => boolean,
  what: string,
): Promise<string> {
  // A generous deadline (30 s): a loaded 2-core machine renders late, never wrongly.
  for (let i = 0; i < 1000; i++) {
    const f = frame() ?? '';
    if (ok(f)) return f;
    await tick();
  }
  throw new Error(`timed out waiting for ${what}; frames:\n${JSON.stringify(frames?.())}`);
}

async function start(
  responses: RecordedResponse[],
  tools: Record<string, unknown> = {},
  journal?: SqliteJournal,
) {
  server = await startReplayServer(responses);
  const gate = createToolgate({
    config: validateConfig({ tools }),
    roots: [ws.dir()],
    approver: denyAll,
    session: 'T',
    ...(journal ? { journal } : {}),
  });
  const controller = new ChatController({
    gate,
    turn: { adapter: adapterFor('openai'), connection: { baseUrl: server.url }, model: 'm', backoffMs: 1 },
  });
  const ui = render(<ChatApp controller={controller} />);
  unmount = ui.unmount;
  frames = () => ui.frames;
  await new Promise((r) => setTimeout(r, 100)); // useInput attaches after the first render
  const type = async (text: string) => {
    for (const ch of text) ui.stdin.write(ch);
    await tick();
  };
  return { ui, controller, type, frame: () => ui.lastFrame() };
}

const write = (id: string, file: string) => ({
  id,
  name: 'write_file',
  args: JSON.stringify({ path: file, content: `${id}\n` }),
});

describe('toolgate chat (ink): FR-TUI-01..04, FR-RES-05', () => {
  it('FR-TUI-01: the approval prompt shows tool, summary and risk; "a" approves all and the model resumes', async () => {
    const t = await start([
      { body: chatStream({ text: 'Writing it.', calls: [write('w1', 'one.txt')] }) },
      { body: textAnswer('openai', 'Written.') },
    ]);
    await t.type('make one.txt\r');
    const prompt = await until(t.frame, (f) => f.includes('Approval needed'), 'the approval prompt');
    expect(prompt).toMatch(/write_file/);
    expect(prompt).toMatch(/one\.txt/);
    expect(prompt).toMatch(/MEDIUM|HIGH|LOW/);
    expect(prompt).toMatch(/\[a\] approve all · \[d\] deny all · \[p\] pick calls/);
    // Issue #30 §1-2, §5: the whole change, and exactly what each "always" would cover.
    expect(prompt).toMatch(/full text \(\d+ characters/);
    expect(prompt).toMatch(/│ \+w1/);
    expect(prompt).toContain('always (session): always allow write_file to one.txt in this session');
    expect(prompt).toMatch(/\[s\] always allow \(session\)/);
    expect(prompt).not.toContain('above the screen');
    await t.type('a');
    const done = await until(t.frame, (f) => f.includes('Written.'), 'the final answer');
    expect(done).toMatch(/✓ write_file/);
    expect(readFileSync(path.join(ws.dir(), 'one.txt'), 'utf8')).toBe('w1\n');
  });

  it('issue #30 §2 (hostile review): a prompt taller than the screen says, beside the keys, that part of it is above', async () => {
    const long = Array.from({ length: 60 }, (_, i) => `line ${i}`).join('\n');
    const t = await start([
      {
        body: chatStream({
          calls: [
            { id: 'w1', name: 'write_file', args: JSON.stringify({ path: 'long.txt', content: long }) },
          ],
        }),
      },
      { body: textAnswer('openai', 'Understood.') },
    ]);
    await t.type('make long.txt\r');
    const prompt = await until(t.frame, (f) => f.includes('Approval needed'), 'the approval prompt');
    expect(prompt).toMatch(/▲ about \d+ lines of this prompt are above the screen/);
    await t.type('d');
    await until(t.frame, (f) => f.includes('Understood.'), 'the resumed answer');
  });

  it('FR-TUI-01/02: "d" denies all: nothing is written, the call shows ⊘ with the reason, the model resumes', async () => {
    const t = await start([
      { body: chatStream({ calls: [write('w1', 'no.txt')] }) },
      { body: textAnswer('openai', 'Understood.') },
    ]);
    await t.type('make no.txt\r');
    await until(t.frame, (f) => f.includes('Approval needed'), 'the approval prompt');
    await t.type('d');
    const done = await until(t.frame, (f) => f.includes('Understood.'), 'the resumed answer');
    expect(done).toMatch(/⊘ write_file/);
    expect(done).toMatch(/denied: the user denied it/);
    expect(existsSync(path.join(ws.dir(), 'no.txt'))).toBe(false);
  });

  it('FR-TUI-01: picking calls runs only the chosen one (T-APR-02)', async () => {
    const t = await start([
      { body: chatStream({ calls: [write('w1', 'first.txt'), write('w2', 'second.txt')] }) },
      { body: textAnswer('openai', 'One of two.') },
    ]);
    await t.type('make both\r');
    await until(t.frame, (f) => f.includes('Approval needed (2 calls)'), 'the approval prompt');
    await t.type('p');
    await until(t.frame, (f) => f.includes('[ ]'), 'pick mode');
    await t.type(' ');
    await until(t.frame, (f) => f.includes('[x]'), 'the first call chosen');
    await t.type('\r');
    await until(t.frame, (f) => f.includes('One of two.'), 'the resumed answer');
    expect(existsSync(path.join(ws.dir(), 'first.txt'))).toBe(true);
    expect(existsSync(path.join(ws.dir(), 'second.txt'))).toBe(false);
  });

  it('FR-TUI-03: streaming tool output shows the tail, sanitized; ↑ scrolls up and stops following', async () => {
    const command = "seq -f 'line%g' 1 80; printf '\\033[31mRED\\033[0m\\n'";
    const t = await start(
      [
        {
          body: chatStream({ calls: [{ id: 'r1', name: 'run_command', args: JSON.stringify({ command }) }] }),
        },
        { body: textAnswer('openai', 'Counted.') },
      ],
      { approval: { denylist: [] }, run_command: { allow: ['printf', 'seq'] } },
    );
    await t.type('count\r');
    const shown = await until(t.frame, (f) => f.includes('Counted.') && f.includes('RED'), 'the output tail');
    expect(shown).toMatch(/line80/);
    expect(shown).not.toMatch(/line1\b/);
    expect(shown).not.toContain('\u001b[31m');
    expect(t.controller.state.output).toHaveLength(50); // FR-TUI-03: only the last 50 lines are kept
    await t.type('\u001b[A'); // arrow up
    await t.type('\u001b[A');
    const scrolled = await until(t.frame, (f) => f.includes('scrolled 2 line(s) up'), 'the scrolled view');
    expect(scrolled).toMatch(/line70/);
    expect(scrolled).toMatch(/line79/);
    expect(scrolled).not.toMatch(/line80/);
  });

  it('cancel (Esc) while the model streams: back to idle, nothing resumed', async () => {
    const t = await start([
      { body: chatStream({ text: 'thinking about it', done: false, finish: null }), hang: true },
    ]);
    await t.type('go\r');
    await until(t.frame, (f) => f.includes('thinking about it'), 'the streaming text');
    await t.type('\u001b');
    const after = await until(t.frame, (f) => f.includes('cancelled'), 'the cancel notice');
    expect(after).toMatch(/cancelled; nothing more was run or sent/);
    expect(server?.requests).toHaveLength(1);
    expect(t.controller.state.busy).toBe(false);
  });

  it('FR-TUI-04: parse-only lists pending calls with ids; /tool <id> <result> supplies them and the model continues', async () => {
    const definitions = [{ name: 'lookup', description: 'manual', parameters: { type: 'object' } }];
    const t = await start(
      [
        { body: chatStream({ calls: [{ id: 'm1', name: 'lookup', args: '{"q":"x"}' }] }) },
        { body: textAnswer('openai', 'Thanks for 42.') },
      ],
      { mode: 'parse_only', definitions },
    );
    await t.type('look it up\r');
    const pending = await until(t.frame, (f) => f.includes('wait for your results'), 'the parse-only panel');
    expect(pending).toMatch(/m1 lookup/);
    expect(pending).toMatch(/\/tool <id> <result>/);
    await t.type('/tool nope 1\r');
    await until(t.frame, (f) => f.includes('no pending call with id nope'), 'the unknown id notice');
    await t.type('/tool m1 42\r');
    await until(t.frame, (f) => f.includes('Thanks for 42.'), 'the resumed answer');
    const messages = (requestBody(server, 1) as { messages: { role: string; content: string }[] }).messages;
    expect(messages.find((m) => m.role === 'tool')?.content).toBe('42');
  });

  it('FR-RES-05: an unfinished batch of this session is put to the person on start; "d" discards its results', async () => {
    const journal = SqliteJournal.open(path.join(ws.dir(), '.toolgate', 'journal.db'));
    const batch = journal.beginBatch('T', [
      { id: 'x1', name: 'write_file', arguments: { path: 'a', content: 'b' } },
    ]);
    journal.markRunning(batch, 0);
    const other = journal.beginBatch('OTHER', [{ id: 'y1', name: 'delete_file', arguments: { path: 'z' } }]);
    orphanBatches(path.join(ws.dir(), '.toolgate', 'journal.db')); // as if left by a toolgate that died
    const t = await start([], {}, journal);
    const prompt = await until(t.frame, (f) => f.includes('interrupted'), 'the recovery prompt');
    expect(prompt).toMatch(/write_file \[running\]/);
    expect(prompt).not.toMatch(/delete_file/); // another session's batch is not offered here
    expect(prompt).toMatch(/1 unfinished batch of another session/);
    expect(prompt).toMatch(/\[r\] resume with the results it has · \[d\] discard/);
    expect(lastLine(prompt)).toMatch(/r resume · d discard/);
    expect(lastLine(prompt)).not.toMatch(/enter send|esc/);
    await t.type('d');
    await until(t.frame, (f) => f.includes('discarded the results of 1'), 'the discard notice');
    expect(journal.incompleteBatches().map((b) => b.id)).toEqual([other]);
    expect(journal.batch(batch)?.status).toBe('discarded');
    journal.close();
  });

  it('Esc at the approval prompt cancels the turn: nothing in the batch runs, the model is not resumed', async () => {
    ws.file('notes.txt', 'read me\n');
    const journal = SqliteJournal.open(path.join(ws.dir(), '.toolgate', 'journal.db'));
    const t = await start(
      [
        {
          body: chatStream({
            calls: [
              { id: 'r1', name: 'read_file', args: JSON.stringify({ path: 'notes.txt' }) },
              write('w1', 'one.txt'),
            ],
          }),
        },
        { body: textAnswer('openai', 'Must not be asked for.') },
      ],
      {},
      journal,
    );
    await t.type('read and write\r');
    const prompt = await until(t.frame, (f) => f.includes('Approval needed'), 'the approval prompt');
    expect(prompt).toMatch(/\[esc\] cancel the turn/);
    expect(lastLine(prompt)).toMatch(/esc cancel the turn/);
    await t.type('\u001b');
    const after = await until(t.frame, (f) => f.includes('cancelled;'), 'the cancel notice');
    expect(after).toMatch(/cancelled; nothing more was run or sent/);
    expect(after).toMatch(/⊘ write_file .*denied: the batch was cancelled/);
    expect(after).not.toContain('Approval needed');
    expect(t.controller.state.busy).toBe(false);
    expect(server?.requests).toHaveLength(1); // the model is not resumed
    expect(existsSync(path.join(ws.dir(), 'one.txt'))).toBe(false);
    // Fail closed: the read-only call of the same batch did not run either; the batch is settled.
    expect(journal.incompleteBatches()).toEqual([]);
    const batch = journal.batch(journal.recentBatches(1)[0]?.id ?? '');
    expect(batch?.calls.map((c) => [c.name, c.result?.ok, c.result?.error?.type])).toEqual([
      ['read_file', false, 'Cancelled'],
      ['write_file', false, 'Denied'],
    ]);
    expect(batch?.calls.some((c) => c.startedAt !== undefined)).toBe(false);
    // The next message is a new turn, with the cancelled batch's results in the history.
    expect(lastLine(t.frame() ?? '')).toMatch(/enter send/);
    journal.close();
  });

  it('in pick mode Esc goes back to the prompt (the status line says so); Esc again cancels', async () => {
    const t = await start([
      { body: chatStream({ calls: [write('w1', 'first.txt'), write('w2', 'second.txt')] }) },
      { body: textAnswer('openai', 'Must not be asked for.') },
    ]);
    await t.type('make both\r');
    await until(t.frame, (f) => f.includes('Approval needed (2 calls)'), 'the approval prompt');
    await t.type('p');
    const picking = await until(t.frame, (f) => f.includes('[ ]'), 'pick mode');
    expect(lastLine(picking)).toMatch(/esc back/);
    await t.type('\u001b');
    const back = await until(t.frame, (f) => f.includes('1. ') && !f.includes('[ ]'), 'the prompt again');
    expect(lastLine(back)).toMatch(/esc cancel the turn/);
    await t.type('\u001b');
    await until(t.frame, (f) => f.includes('cancelled; nothing more was run or sent'), 'the cancel');
    expect(server?.requests).toHaveLength(1);
    expect(existsSync(path.join(ws.dir(), 'first.txt'))).toBe(false);
  });

  it('the status line says what the keys do in each state', async () => {
    const t = await start([
      { body: chatStream({ calls: [write('w1', 'one.txt')] }) },
      { body: chatStream({ text: 'thinking', done: false, finish: null }), hang: true },
    ]);
    const idle = lastLine(t.frame() ?? '');
    expect(idle).toMatch(/enter send/);
    expect(idle).toMatch(/\/help/);
    expect(idle).not.toMatch(/esc/); // Esc does nothing when no turn runs
    await t.type('make one.txt\r');
    await until(t.frame, (f) => f.includes('Approval needed'), 'the approval prompt');
    expect(lastLine(t.frame() ?? '')).not.toMatch(/enter send/);
    await t.type('a');
    const busy = await until(t.frame, (f) => f.includes('thinking'), 'the streaming answer');
    expect(lastLine(busy)).toMatch(/esc cancel the turn/);
    expect(lastLine(busy)).not.toMatch(/enter send/);
    await t.type('\u001b');
    const done = await until(t.frame, (f) => f.includes('cancelled;'), 'the cancel');
    expect(lastLine(done)).toMatch(/enter send/);
  });

  it('slash commands are local: /help shows keys and commands, an unknown one is refused, nothing is sent', async () => {
    const t = await start([
      { body: textAnswer('openai', 'Paths are fine.') },
      { body: textAnswer('openai', 'Slash kept.') },
    ]);
    await t.type('/help\r');
    const help = await until(t.frame, (f) => f.includes('/tool <id> <result>'), 'the help');
    expect(help).toMatch(/esc\s+cancel the running turn/);
    expect(help).toMatch(/\/quit/);
    expect(help).toMatch(/\[a\] approve all/);
    await t.type('/frobnicate now\r');
    const unknown = await until(t.frame, (f) => f.includes('unknown command'), 'the unknown-command notice');
    expect(unknown).toMatch(/unknown command \/frobnicate: nothing was sent/);
    expect(unknown.replace(/\s+/g, ' ')).toMatch(/\/help · \/todos · \/tool <id> <result> · \/quit/);
    await t.type('/toolbox\r');
    await until(t.frame, (f) => f.includes('unknown command /toolbox'), 'no prefix match');
    expect(server?.requests).toHaveLength(0);
    // A path is a message, not a command; `//` sends a line that starts with a slash.
    await t.type('/etc/hosts has a typo\r');
    await until(t.frame, (f) => f.includes('Paths are fine.'), 'the first answer');
    await t.type('//help means what?\r');
    await until(t.frame, (f) => f.includes('Slash kept.'), 'the second answer');
    const sent = (n: number) =>
      (requestBody(server, n) as { messages: { role: string; content: string }[] }).messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content);
    expect(sent(1)).toEqual(['/etc/hosts has a typo', '/help means what?']);
    await t.type('/quit\r');
    await until(
      () => String(t.controller.state.exit),
      (f) => f === 'true',
      '/quit',
    );
  });

  it('the status line fits the terminal at every width from 40 to 200 columns, whatever the state', async () => {
    const t = await start([
      { body: chatStream({ text: 'thinking hard', done: false, finish: null }), hang: true },
    ]);
    const title = {
      provider: 'openai-compatible',
      model: 'qwen2.5-coder:14b',
      session: '0f8e4b2a-3c1d-4e5f-9a6b-7c8d9e0f1a2b',
    };
    t.ui.rerender(<ChatApp controller={t.controller} title={title} />);
    const at = async (columns: number) => {
      Object.defineProperty(t.ui.stdout, 'columns', { configurable: true, get: () => columns });
      t.ui.stdout.emit('resize');
      await tick();
      return t.frame() ?? '';
    };
    const check = (frame: string, columns: number, prompt: RegExp, must: RegExp) => {
      const rows = frame.split('\n');
      const status = rows.at(-1) ?? '';
      expect(rows.at(-2), `${columns} columns:\n${frame}`).toMatch(prompt);
      expect([...status].length, `${columns} columns: ${status}`).toBeLessThan(columns);
      expect(status).toMatch(must);
    };
    for (const columns of [40, 50, 60, 80, 100, 110, 120, 140, 160, 200]) {
      check(await at(columns), columns, /^›\s*$/, /enter send.*\/help/);
    }
    expect(await at(200)).toMatch(/session 0f8e4b2a-3c1d-4e5f-9a6b-7c8d9e0f1a2b/);
    await t.type('go\r');
    await until(t.frame, (f) => f.includes('thinking hard'), 'the streaming text');
    for (const columns of [40, 100, 120, 200]) {
      check(await at(columns), columns, /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s*$/, /esc cancel/);
    }
    t.controller.cancel();
  });

  it('FR-RES-05: an unfinished batch of another session does not block a new chat: a one-line notice names `toolgate recover`', async () => {
    const journal = SqliteJournal.open(path.join(ws.dir(), '.toolgate', 'journal.db'));
    const other = journal.beginBatch('OTHER', [
      { id: 'x1', name: 'write_file', arguments: { path: 'a', content: 'b' } },
    ]);
    journal.markRunning(other, 0);
    journal.beginBatch('ANOTHER', [{ id: 'x2', name: 'write_file', arguments: { path: 'c', content: 'd' } }]);
    orphanBatches(path.join(ws.dir(), '.toolgate', 'journal.db'));
    const t = await start([{ body: textAnswer('openai', 'Hello there.') }], {}, journal);
    const first = await until(t.frame, (f) => f.includes('enter send'), 'the chat');
    expect(first).not.toMatch(/interrupted with an unfinished batch|\[r\] resume/);
    expect(t.controller.state.recovery).toBeUndefined();
    const notice = first.split('\n').filter((l) => l.includes('unfinished batch'));
    expect(notice).toEqual([
      expect.stringMatching(
        /^· 2 unfinished batches of other sessions wait in the journal: see `toolgate recover`$/,
      ),
    ]);
    await t.type('hello\r');
    await until(t.frame, (f) => f.includes('Hello there.'), 'the answer');
    expect(server?.requests).toHaveLength(1);
    // Left for `toolgate recover`, untouched.
    expect(journal.incompleteBatches().map((b) => b.session)).toEqual(['OTHER', 'ANOTHER']);
    journal.close();
  });

  it('a continued session shows the earlier conversation, and the model gets it', async () => {
    server = await startReplayServer([{ body: textAnswer('openai', 'Still 42.') }]);
    const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()], approver: denyAll });
    const controller = new ChatController({
      gate,
      history: [
        { role: 'user', text: 'what is the answer?' },
        { role: 'assistant', text: 'It is 42.', toolCalls: [], provider: 'openai' },
      ],
      turn: { adapter: adapterFor('openai'), connection: { baseUrl: server.url }, model: 'm' },
    });
    const ui = render(<ChatApp controller={controller} />);
    unmount = ui.unmount;
    await new Promise((r) => setTimeout(r, 100));
    const first = await until(
      () => ui.lastFrame(),
      (f) => f.includes('continuing'),
      'the earlier messages',
    );
    expect(first).toMatch(/what is the answer\?/);
    expect(first).toMatch(/It is 42\./);
    ui.stdin.write('and now?\r');
    await until(
      () => ui.lastFrame(),
      (f) => f.includes('Still 42.'),
      'the answer',
    );
    const messages = (requestBody(server, 0) as { messages: { role: string; content: string }[] }).messages;
    expect(messages.map((m) => m.content)).toEqual(['what is the answer?', 'It is 42.', 'and now?']);
  });

  it('model text and tool summaries are sanitized before they are drawn', async () => {
    const t = await start([{ body: textAnswer('openai', 'safe \u001b]0;pwned\u0007 text \u202e') }]);
    await t.type('hi\r');
    const f = await until(t.frame, (x) => x.includes('safe'), 'the answer');
    expect(f).not.toContain('\u001b]0;');
    expect(f).not.toContain('\u202e');
  });

  it('write_todos: the todo list is on screen as the model keeps it (open first, done counted); /todos prints it all; a continued session shows it at once', async () => {
    const journal = SqliteJournal.open(path.join(ws.dir(), '.toolgate', 'journal.db'));
    const add = (id: string, task: string) => ({
      id,
      name: 'write_todos',
      args: JSON.stringify({ action: 'add', task }),
    });
    const t = await start(
      [
        {
          body: chatStream({
            calls: [add('t1', 'read the tide table'), add('t2', 'plan the crossing \u001b[31mnow')],
          }),
        },
        { body: textAnswer('openai', 'Two things to do.') },
      ],
      {},
      journal,
    );
    await t.type('plan it\r');
    const f = await until(
      t.frame,
      (x) => x.includes('Two things to do.') && x.includes('todos ·'),
      'the todo panel',
    );
    expect(f).toMatch(/todos · 0 of 2 done/);
    expect(f).toMatch(/☐ read the tide table/);
    expect(f).toMatch(/☐ plan the crossing/);
    expect(f).not.toContain('\u001b[31m');
    const [first] = journal.todos('T');
    await t.type('/todos\r');
    const listed = await until(t.frame, (x) => x.includes('todos: 0 of 2 done'), 'the /todos answer');
    expect(listed).toContain(`[ ] ${first?.id}: read the tide table`);
    unmount?.();
    // the same session, later: the list comes back from the journal before anything is said
    journal.saveTodos(
      'T',
      journal.todos('T').map((todo, i) => ({ ...todo, completed: i === 0 })),
    );
    const again = new ChatController({
      gate: createToolgate({
        config: validateConfig({}),
        roots: [ws.dir()],
        approver: denyAll,
        session: 'T',
        journal,
      }),
      turn: { adapter: adapterFor('openai'), connection: { baseUrl: 'http://127.0.0.1:9' }, model: 'm' },
    });
    const ui = render(<ChatApp controller={again} />);
    unmount = ui.unmount;
    const shown = await until(
      () => ui.lastFrame(),
      (x) => x.includes('todos ·'),
      'the restored panel',
    );
    expect(shown).toMatch(/todos · 1 of 2 done/);
    // open ones first
    expect(shown.indexOf('☐ plan the crossing')).toBeLessThan(shown.indexOf('☑ read the tide table'));
  });
});
