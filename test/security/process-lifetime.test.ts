import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { alive, waitFor } from '../helpers/process-group.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #13 item 12: nothing a command started outlives toolgate, however toolgate ends — SIGKILL
 * included (a parent-death signal to the command's guard), SIGTERM and SIGHUP to the MCP server.
 * Each command writes its pid; afterwards no such process may be running (or only as a zombie).
 */
const BIN = path.join(REPO, 'bin/toolgate.js');

function project(): string {
  const root = makeTempDir('toolgate-life-');
  writeFileSync(
    path.join(root, 'toolgate.toml'),
    '[tools.approval]\ndenylist = []\n[tools.run_command]\nallow = ["sh spawner.sh", "sleep", "echo"]\n',
  );
  return root;
}

/** A command (allowed as `sh spawner.sh NAME`) that leaves a grandchild sleeping and says both pids. */
const SPAWNS = (file: string) => {
  writeFileSync(
    path.join(path.dirname(file), 'spawner.sh'),
    'sleep 300 &\necho $! > "$1.child"\necho $$ > "$1.parent"\nwait\n',
  );
  return `sh spawner.sh ${path.basename(file)}`;
};

// A file the shell has opened but not yet written reads empty: only whole pids count.
const pidsIn = (file: string) =>
  [`${file}.child`, `${file}.parent`]
    .filter(existsSync)
    .map((f) => Number(readFileSync(f, 'utf8').trim()))
    .filter((pid) => pid > 0);

describe('process lifetime (issue #13)', () => {
  it('SIGKILL to toolgate exec: the running command and what it started die too', async () => {
    const root = project();
    const file = path.join(root, 'pids');
    const child = spawn(process.execPath, [BIN, 'exec', '--no-journal', '--config', 'toolgate.toml'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.stdin.end(JSON.stringify([{ id: '1', name: 'run_command', arguments: { command: SPAWNS(file) } }]));
    expect(await waitFor(() => pidsIn(file).length === 2), output).toBe(true);
    const pids = pidsIn(file);
    expect(pids.every(alive)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitFor(() => !pids.some(alive)), `still running: ${pids.filter(alive)}`).toBe(true);
  });

  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} to toolgate mcp: running calls and background jobs are stopped, and it exits`, async () => {
      const root = project();
      const running = path.join(root, 'running');
      const job = path.join(root, 'job');
      const server = spawn(
        process.execPath,
        [BIN, 'mcp', '--no-journal', '--root', root, '--config', 'toolgate.toml'],
        {
          cwd: root,
          stdio: ['pipe', 'pipe', 'ignore'],
        },
      );
      const send = (m: unknown) => server.stdin.write(`${JSON.stringify(m)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'run_command', arguments: { command: SPAWNS(job), background: true } },
      });
      send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'run_command', arguments: { command: SPAWNS(running) } },
      });
      expect(await waitFor(() => pidsIn(running).length === 2 && pidsIn(job).length === 2)).toBe(true);
      const pids = [...pidsIn(running), ...pidsIn(job)];
      const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
      server.kill(signal);
      expect(await waitFor(() => !pids.some(alive)), `still running: ${pids.filter(alive)}`).toBe(true);
      await exited;
    });
  }
});
