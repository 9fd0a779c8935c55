import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { REPO } from '../cli/run-cli.js';
import { recorder } from '../helpers/event-recorder.js';
import { runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir, useWorkspace } from '../helpers/workspace.js';

const ws = useWorkspace();
const SECRET = 'ghp_LOGSECRET0123456789abcdefghijklmnopq';

describe('structured logs (issue #16 §3)', () => {
  it('each call is started and completed or failed, a call that never ran is blocked, approvals are requested and decided; ids and rules only, never a secret or content', async () => {
    ws.file('notes.txt', `the token is ${SECRET}\n`);
    const { lines, logger } = recorder();
    const gate = createToolgate({
      config: validateConfig({}),
      roots: [ws.dir()],
      approver: async () => ({ kind: 'deny_all', reason: 'no' }),
      logger,
      session: 'S1',
    });
    await gate.execute([
      { id: 'a', name: 'read_file', arguments: { path: 'notes.txt' } },
      { id: 'b', name: 'read_file', arguments: { path: `missing-${SECRET}.txt` } },
      { id: 'c', name: 'write_file', arguments: { path: 'out.txt', content: SECRET } },
      { id: 'd', name: 'read_file', arguments: { path: `../${SECRET}` } },
    ]);
    const events = lines.map((l) => `${l.event}:${l.call_id ?? ''}`);
    expect(events).toEqual([
      'approval_requested:c',
      'approval_decided:',
      'tool_call_started:a',
      'tool_call_completed:a',
      'tool_call_started:b',
      'tool_call_failed:b',
      'tool_call_blocked:c',
      'tool_call_blocked:d',
    ]);
    expect(lines.find((l) => l.event === 'tool_call_failed')).toMatchObject({
      level: 'info',
      session: 'S1',
      tool: 'read_file',
      error_type: 'NotFound',
      ok: false,
    });
    expect(lines.find((l) => l.call_id === 'c' && l.event === 'tool_call_blocked')).toMatchObject({
      level: 'warn',
      error_type: 'Denied',
      rule: expect.any(String),
    });
    expect(lines.find((l) => l.call_id === 'd')).toMatchObject({ error_type: 'SandboxViolation' });
    expect(lines.find((l) => l.event === 'approval_decided')).toMatchObject({
      asked: 1,
      granted: 0,
      denied: 1,
    });
    expect(typeof lines.find((l) => l.event === 'tool_call_completed')?.latency_ms).toBe('number');
    expect(JSON.stringify(lines)).not.toContain('LOGSECRET');
    expect(JSON.stringify(lines)).not.toContain('the token is');
  });

  it("a tool that does not exist is logged as (unknown), never by the model's text; long call ids are cut", async () => {
    const { lines, logger } = recorder();
    const gate = createToolgate({ config: validateConfig({}), roots: [ws.dir()], logger });
    await gate.execute([{ id: `sk-ant-${'x'.repeat(200)}`, name: `tool_${SECRET}`, arguments: {} }]);
    expect(lines[0]).toMatchObject({
      event: 'tool_call_blocked',
      tool: '(unknown)',
      error_type: 'UnknownTool',
    });
    expect(String(lines[0]?.call_id).length).toBeLessThanOrEqual(64);
    expect(JSON.stringify(lines)).not.toContain('LOGSECRET');
  });

  it('toolgate exec: JSON lines to --log-file at info; by default only blocked calls reach stderr (warn); no secret in either', async () => {
    const root = makeTempDir('toolgate-log-');
    const calls = JSON.stringify([
      { id: '1', name: 'list_directory', arguments: { path: '.' } },
      { id: '2', name: 'write_file', arguments: { path: 'x.txt', content: SECRET } },
    ]);
    const file = path.join(root, 'logs', 'toolgate.log');
    const run = await runCliAsync(['exec', '--no-journal', '--log-level', 'info', '--log-file', file], {
      cwd: root,
      input: calls,
    });
    expect(run.status).toBe(0);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.event)).toEqual([
      'approval_requested',
      'approval_decided',
      'tool_call_started',
      'tool_call_completed',
      'tool_call_blocked',
    ]);
    for (const l of lines)
      expect(l).toMatchObject({ service: 'toolgate', time: expect.any(String), msg: l.event });
    expect(readFileSync(file, 'utf8')).not.toContain('LOGSECRET');

    const plain = await runCliAsync(['exec', '--no-journal'], { cwd: root, input: calls });
    const stderr = plain.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(stderr.map((l) => l.event)).toEqual(['tool_call_blocked']);
    expect(plain.stderr).not.toContain('LOGSECRET');
    const quiet = await runCliAsync(['exec', '--no-journal', '--log-level', 'silent'], {
      cwd: root,
      input: calls,
    });
    expect(quiet.stderr).toBe('');
    const bad = await runCliAsync(['exec', '--no-journal', '--log-level', 'loud'], {
      cwd: root,
      input: calls,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--log-level must be one of/);
  });

  it('pino is loaded with the first line written, not at start: a run that logs nothing never loads it', () => {
    const root = makeTempDir('toolgate-log-');
    // Reports every load of pino (the CLI requires it synchronously, by name).
    const watch = path.join(root, 'watch-pino.cjs');
    writeFileSync(
      watch,
      "const M = require('node:module'); const load = M._load; M._load = function (request, ...rest) { if (request === 'pino') process.stderr.write('PINO-LOADED\\n'); return load.call(this, request, ...rest); };\n",
    );
    const exec = (calls: unknown[]) =>
      spawnSync(
        process.execPath,
        ['-r', watch, path.join(REPO, 'bin', 'toolgate.js'), 'exec', '--no-journal'],
        {
          cwd: root,
          input: JSON.stringify(calls),
          encoding: 'utf8',
        },
      );
    const quiet = exec([{ id: '1', name: 'list_directory', arguments: { path: '.' } }]);
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
    const blocked = exec([{ id: '1', name: 'read_file', arguments: { path: '../outside.txt' } }]);
    expect(blocked.stderr.split('\n')[0]).toBe('PINO-LOADED');
    expect(JSON.parse(blocked.stderr.split('\n')[1] as string)).toMatchObject({ event: 'tool_call_blocked' });
  });

  it('approveAll: approvals granted are logged as such', async () => {
    const { lines, logger } = recorder();
    const gate = createToolgate({
      config: validateConfig({}),
      roots: [ws.dir()],
      approver: approveAll,
      logger,
    });
    await gate.execute([{ id: 'w', name: 'write_file', arguments: { path: 'ok.txt', content: 'x' } }]);
    expect(lines.find((l) => l.event === 'approval_decided')).toMatchObject({
      asked: 1,
      granted: 1,
      denied: 0,
    });
    expect(lines.map((l) => l.event)).toContain('tool_call_completed');
  });
});
