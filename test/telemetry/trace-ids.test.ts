import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { createToolgate } from '../../src/toolgate.js';
import { REPO } from '../cli/run-cli.js';
import { recorder } from '../helpers/event-recorder.js';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import { startReplayServer } from '../helpers/replay-server.js';
import { replayModelArgs, runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir, useWorkspace } from '../helpers/workspace.js';

/**
 * Seed 002 §1 ("Observable: every invocation logged with trace correlation") and §4.2 (each
 * tool_call_* line carries trace_id and span_id), issue #31 §4: with no OpenTelemetry SDK
 * registered (none is in this file), the ids come from TRACEPARENT when it is valid, else are made.
 */
const ws = useWorkspace();
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE}-00f067aa0ba902b7-01`;
const TRACE_ID = /^(?!0+$)[0-9a-f]{32}$/;
const SPAN_ID = /^(?!0+$)[0-9a-f]{16}$/;

const CALLS = [
  { id: 'a', name: 'read_file', arguments: { path: 'notes.txt' } },
  { id: 'b', name: 'read_file', arguments: { path: 'missing.txt' } },
  { id: 'c', name: 'write_file', arguments: { path: 'out.txt', content: 'x' } },
  { id: 'd', name: 'read_file', arguments: { path: '../outside.txt' } },
];

async function logged(traceparent?: string) {
  ws.file('notes.txt', 'tide at six\n');
  const { lines, logger } = recorder();
  const gate = createToolgate({
    config: validateConfig({}),
    roots: [ws.dir()],
    approver: async () => ({ kind: 'deny_all', reason: 'no' }),
    logger,
  });
  await gate.execute(CALLS, traceparent === undefined ? {} : { traceparent });
  return lines;
}

/** Every line of a batch is in one trace; a call's lines share its own span id, other calls' differ. */
function expectCorrelated(lines: Record<string, unknown>[], traceId: RegExp | string) {
  expect(lines.map((l) => l.event)).toEqual([
    'approval_requested',
    'approval_decided',
    'tool_call_started',
    'tool_call_completed',
    'tool_call_started',
    'tool_call_failed',
    'tool_call_blocked',
    'tool_call_blocked',
  ]);
  for (const l of lines) {
    expect(l.trace_id, String(l.event)).toMatch(traceId);
    expect(l.span_id, String(l.event)).toMatch(SPAN_ID);
    expect(l.trace_id).toBe(lines[0]?.trace_id);
  }
  const spanOf = (event: string, call: string) =>
    lines.find((l) => l.event === event && l.call_id === call)?.span_id;
  expect(spanOf('tool_call_completed', 'a')).toBe(spanOf('tool_call_started', 'a'));
  expect(spanOf('tool_call_failed', 'b')).toBe(spanOf('tool_call_started', 'b'));
  const calls = ['a', 'b', 'c', 'd'].map(
    (id) => lines.find((l) => l.call_id === id && String(l.event).startsWith('tool_call_'))?.span_id,
  );
  expect(new Set(calls).size).toBe(4);
  // the approval lines are the batch's: one span id, none of the calls'
  expect(lines[0]?.span_id).toBe(lines[1]?.span_id);
  expect(calls).not.toContain(lines[0]?.span_id);
}

describe('seed 002 §1/§4.2: every invocation logged with trace correlation, without an OpenTelemetry SDK (issue #31 §4)', () => {
  it('no SDK is registered here: the tracer makes no spans', () => {
    expect(trace.getTracer('t').startSpan('x').isRecording()).toBe(false);
  });

  it('a traceparent given: every line of the batch is in its trace, each call with a span id of its own', async () => {
    const lines = await logged(PARENT);
    expectCorrelated(lines, TRACE);
    expect(lines.map((l) => l.span_id)).not.toContain('00f067aa0ba902b7'); // the caller's span is the parent
  });

  it('no traceparent: a trace id is made (16 bytes, lowercase hex, not zero) and span ids (8 bytes), new for each batch', async () => {
    const first = await logged();
    expectCorrelated(first, TRACE_ID);
    const second = await logged();
    expectCorrelated(second, TRACE_ID);
    expect(second[0]?.trace_id).not.toBe(first[0]?.trace_id);
  });

  it.each([
    ['not hex', '00-zzf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero span id', `00-${TRACE}-0000000000000000-01`],
    ['version ff', `ff-${TRACE}-00f067aa0ba902b7-01`],
    ['a short trace id', `00-${TRACE.slice(2)}-00f067aa0ba902b7-01`],
    ['free text', 'trace me'],
  ])('a malformed traceparent (%s) is ignored: the ids are made instead', async (_, bad) => {
    const lines = await logged(bad);
    expectCorrelated(lines, TRACE_ID);
    expect(lines[0]?.trace_id).not.toBe(TRACE);
  });
});

describe('seed 002 §4.2 through the CLI: toolgate exec logs trace_id and span_id from TRACEPARENT, else made (issue #31 §4)', () => {
  const calls = JSON.stringify([
    { id: '1', name: 'list_directory', arguments: { path: '.' } },
    { id: '2', name: 'read_file', arguments: { path: '../outside.txt' } },
  ]);
  const exec = async (traceparent: string) => {
    const root = makeTempDir('toolgate-trace-ids-');
    const file = path.join(root, 'toolgate.log');
    const run = await runCliAsync(['exec', '--no-journal', '--log-level', 'info', '--log-file', file], {
      cwd: root,
      input: calls,
      env: { TRACEPARENT: traceparent },
    });
    expect(run.status, run.stderr).toBe(0);
    return readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };

  it('TRACEPARENT valid: its trace id on every line; malformed or absent: one made for the batch', async () => {
    for (const [traceparent, expected] of [
      [PARENT, TRACE],
      ['00-not-a-traceparent-01', TRACE_ID],
      ['', TRACE_ID],
    ] as const) {
      const lines = await exec(traceparent);
      expect(lines.map((l) => l.event)).toEqual([
        'tool_call_started',
        'tool_call_completed',
        'tool_call_blocked',
      ]);
      for (const l of lines) {
        expect(l.trace_id).toMatch(expected);
        expect(l.trace_id).toBe(lines[0]?.trace_id);
        expect(l.span_id).toMatch(SPAN_ID);
      }
      expect(lines[0]?.span_id).toBe(lines[1]?.span_id);
      expect(lines[2]?.span_id).not.toBe(lines[0]?.span_id);
      if (expected !== TRACE) expect(lines[0]?.trace_id).not.toBe(TRACE);
    }
  });
});

describe('seed 002 §4.2: toolgate run and toolgate mcp log every call with trace ids, without an SDK (issue #31 §4)', () => {
  const noKeys = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '' };
  const readLog = (file: string) =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => String(l.event).startsWith('tool_call_'));

  it('toolgate run, no TRACEPARENT: the calls of a turn’s two batches share one made trace, each its own span', async () => {
    const root = makeTempDir('toolgate-trace-run-');
    writeFileSync(path.join(root, 'notes.txt'), 'tide at six\n');
    const logFile = path.join(root, 'run.log');
    const model = await startReplayServer([
      { body: chatStream({ calls: [{ id: 'c1', name: 'read_file', args: '{"path":"notes.txt"}' }] }) },
      { body: chatStream({ calls: [{ id: 'c2', name: 'list_directory', args: '{"path":"."}' }] }) },
      { body: textAnswer('openai', 'Done.') },
    ]);
    try {
      const run = await runCliAsync(
        [
          'run',
          'look',
          ...replayModelArgs(model.url),
          '--no-journal',
          '--log-level',
          'info',
          '--log-file',
          logFile,
        ],
        { cwd: root, env: { ...noKeys, TRACEPARENT: '' } },
      );
      expect(run.stdout.trim(), run.stderr).toBe('Done.');
    } finally {
      await model.close();
    }
    const lines = readLog(logFile);
    expect(lines.map((l) => `${l.event}:${l.call_id}`)).toEqual([
      'tool_call_started:c1',
      'tool_call_completed:c1',
      'tool_call_started:c2',
      'tool_call_completed:c2',
    ]);
    expect(lines[0]?.trace_id).toMatch(TRACE_ID);
    for (const l of lines) expect(l.trace_id).toBe(lines[0]?.trace_id);
    expect(lines[0]?.span_id).toMatch(SPAN_ID);
    expect(lines[2]?.span_id).toMatch(SPAN_ID);
    expect(lines[2]?.span_id).not.toBe(lines[0]?.span_id);
  });

  it('toolgate mcp on stdio: a call without _meta.traceparent is in the trace of the TRACEPARENT the host started it under', async () => {
    const root = makeTempDir('toolgate-trace-mcp-');
    writeFileSync(path.join(root, 'notes.txt'), 'tide at six\n');
    const logFile = path.join(root, 'mcp.log');
    const client = new Client({ name: 't', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          path.join(REPO, 'bin', 'toolgate.js'),
          'mcp',
          '--no-journal',
          '--log-level',
          'info',
          '--log-file',
          logFile,
        ],
        cwd: root,
        env: { ...(process.env as Record<string, string>), TRACEPARENT: PARENT },
        stderr: 'ignore',
      }),
    );
    try {
      const r = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
      expect(r.isError).toBe(false);
    } finally {
      await client.close();
    }
    const lines = readLog(logFile);
    expect(lines.map((l) => l.event)).toEqual(['tool_call_started', 'tool_call_completed']);
    for (const l of lines) {
      expect(l.trace_id).toBe(TRACE);
      expect(l.span_id).toMatch(SPAN_ID);
    }
  });
});
