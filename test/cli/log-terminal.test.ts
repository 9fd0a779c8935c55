import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { logLineText } from '../../src/cli/log-line-text.js';
import { runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';
import { configHomeFor, REPO } from './run-cli.js';

const ESC = '\u001b';
/** A call id is the model's text: here one that would turn a terminal red and hide what follows. */
const CALLS = JSON.stringify([
  { id: `${ESC}[31mred${ESC}[8m`, name: 'read_file', arguments: { path: '../outside.txt' } },
  { id: '2', name: 'list_directory', arguments: { path: '.' } },
]);

/**
 * `toolgate exec` with its stderr on a real pseudo-terminal (`script` makes one; stdin and stdout
 * go to files): what a person sees there, as the terminal received it.
 */
function onTerminal(args: string[]): Promise<{ status: number | null; screen: string }> {
  const root = makeTempDir('toolgate-log-tty-');
  writeFileSync(path.join(root, 'calls.json'), CALLS);
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, path.join(REPO, 'bin', 'toolgate.js'), 'exec', ...args]
    .map(quote)
    .join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', `${command} < calls.json > out.json`, '/dev/null'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0', XDG_CONFIG_HOME: configHomeFor(undefined) },
    });
    let screen = '';
    child.stdout.on('data', (c: Buffer) => {
      screen += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      screen += c.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, screen });
    });
  });
}

describe('issue #31 §3: log lines are text on a person’s terminal, JSON to files and pipes', () => {
  it('stderr a terminal: time, level, message and fields, no JSON; the model’s text cannot drive the terminal', async () => {
    const { status, screen } = await onTerminal(['--no-journal', '--log-level', 'info']);
    expect(status).toBe(0);
    const lines = screen.replaceAll('\r\n', '\n').trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d WARN {2}tool_call_blocked call_id="\\u001b\[31mred\\u001b\[8m" tool=read_file .*error_type=SandboxViolation session=\S+ trace_id=[0-9a-f]{32} span_id=[0-9a-f]{16}$/,
    );
    expect(lines[1]).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}tool_call_started call_id=2 tool=list_directory .*rule="read-only tools run without asking" /,
    );
    expect(lines[2]).toMatch(/^\d\d:\d\d:\d\d INFO {2}tool_call_completed call_id=2 .*ok=true /);
    for (const line of lines) expect(() => JSON.parse(line)).toThrow();
    expect(screen).not.toContain(ESC);
  });

  it('stderr a pipe: the same lines as JSON, exactly as before', async () => {
    const root = makeTempDir('toolgate-log-pipe-');
    const run = await runCliAsync(['exec', '--no-journal', '--log-level', 'info'], {
      cwd: root,
      input: CALLS,
    });
    expect(run.status).toBe(0);
    const lines = run.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.event)).toEqual([
      'tool_call_blocked',
      'tool_call_started',
      'tool_call_completed',
    ]);
    expect(lines[0]).toMatchObject({
      level: 40,
      service: 'toolgate',
      msg: 'tool_call_blocked',
      call_id: `${ESC}[31mred${ESC}[8m`,
      time: expect.any(String),
    });
  });

  it('a --log-file gets JSON even with stderr a terminal, and nothing reaches the terminal', async () => {
    const dir = makeTempDir('toolgate-log-file-');
    const file = path.join(dir, 'toolgate.log');
    const { status, screen } = await onTerminal(['--no-journal', '--log-level', 'info', '--log-file', file]);
    expect(status).toBe(0);
    expect(screen).toBe('');
    const events = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: string }).event);
    expect(events).toEqual(['tool_call_blocked', 'tool_call_started', 'tool_call_completed']);
  });

  it('the text form: plain values bare, others quoted with escapes (C1 controls and bidi marks too), long ids last', () => {
    const line = logLineText(
      'warn',
      {
        event: 'tool_call_blocked',
        service: 'toolgate',
        trace_id: 'ab',
        session: 's',
        call_id: 'x\u009b2J\u202eevil',
        ok: false,
        latency_ms: 3,
        note: 'a b',
      },
      'tool_call_blocked',
      new Date(2026, 0, 2, 3, 4, 5),
    );
    expect(line).toBe(
      '03:04:05 WARN  tool_call_blocked call_id="x\\u009b2J\\u202eevil" ok=false latency_ms=3 note="a b" session=s trace_id=ab\n',
    );
  });
});
