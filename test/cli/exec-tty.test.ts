import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeTmux, tmux } from '../helpers/tmux.js';
import { makeTempDir } from '../helpers/workspace.js';
import { REPO } from './run-cli.js';

/** `toolgate exec` typed at a real terminal (tmux gives it one): it says what it waits for. */
afterAll(closeTmux);
const sessions: string[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) tmux('kill-session', '-t', s);
});

async function waitFor(session: string, ok: (text: string) => boolean): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const text = tmux('capture-pane', '-p', '-J', '-t', session, '-S', '-100').stdout;
    if (ok(text)) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out; screen:\n${tmux('capture-pane', '-p', '-t', session).stdout}`);
}

describe('toolgate exec at a terminal (issue #12)', () => {
  it('prints a one-line hint on the terminal, then reads the calls until Ctrl-D', async () => {
    const root = makeTempDir('toolgate-tty-');
    const session = `toolgate-exec-${process.pid}`;
    sessions.push(session);
    const command = [
      process.execPath,
      path.join(REPO, 'bin/toolgate.js'),
      'exec',
      '--no-journal',
      '--root',
      root,
    ];
    expect(
      tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '40', `${command.join(' ')}; sleep 30`)
        .status,
    ).toBe(0);
    await waitFor(session, (t) =>
      t.includes('toolgate exec: reading tool calls as JSON from stdin; end with Ctrl-D'),
    );
    tmux('send-keys', '-t', session, '-l', '[{"id":"1","name":"list_directory","arguments":{"path":"."}}]');
    tmux('send-keys', '-t', session, 'Enter');
    tmux('send-keys', '-t', session, 'C-d');
    const screen = await waitFor(session, (t) => t.includes('"ok": true'));
    expect(screen).toMatch(/"name": "list_directory"/);
  });
});
