import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import type { EventLogger } from '../../src/telemetry/event-log.js';
import { createToolgate } from '../../src/toolgate.js';
import { statusLine } from '../../src/tui/status-line.js';
import { REPO } from '../cli/run-cli.js';
import { runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';

const BIN = path.join(REPO, 'bin', 'toolgate.js');

describe('governance mode at run time (issue #16 §5)', () => {
  it('a mode set through one journal connection governs every gate on it, logged with who and why', async () => {
    const root = makeTempDir('toolgate-mode-');
    const file = path.join(root, '.toolgate', 'journal.db');
    const lines: Record<string, unknown>[] = [];
    const logger: EventLogger = {
      info: (f) => lines.push({ level: 'info', ...f }),
      warn: (f) => lines.push({ level: 'warn', ...f }),
    };
    const operator = createToolgate({
      config: validateConfig({}),
      roots: [root],
      journal: SqliteJournal.open(file),
    });
    const worker = createToolgate({
      config: validateConfig({}),
      roots: [root],
      journal: SqliteJournal.open(file), // another connection, as another process has
      approver: approveAll,
      logger,
    });
    const write = { id: 'w', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } };
    expect((await worker.execute([write]))[0]?.ok).toBe(true);
    expect(worker.governanceMode()).toEqual({ mode: 'NORMAL', source: 'config' });

    await operator.setMode('LOCKDOWN', 'a model probing the fence', 'ops:alice');
    const [denied] = await worker.execute([{ ...write, arguments: { path: 'b.txt', content: 'b' } }]);
    expect(denied?.error?.type).toBe('Denied');
    expect(denied?.content).toMatch(/forbidden in LOCKDOWN mode/);
    const [read] = await worker.execute([{ id: 'r', name: 'read_file', arguments: { path: 'a.txt' } }]);
    expect(read?.ok).toBe(true); // read-only tools go on
    expect(lines.find((l) => l.event === 'mode_changed')).toMatchObject({
      level: 'warn',
      from: 'NORMAL',
      to: 'LOCKDOWN',
      source: 'journal',
      actor: 'ops:alice',
      reason: 'a model probing the fence',
    });
    expect(worker.governanceMode()).toMatchObject({ mode: 'LOCKDOWN', source: 'journal' });

    await operator.setMode('NORMAL', 'cleared', 'ops:alice');
    expect((await worker.execute([{ ...write, arguments: { path: 'c.txt', content: 'c' } }]))[0]?.ok).toBe(
      true,
    );
    const history = worker.journal?.modeHistory(10).map((h) => h.mode);
    expect(history).toEqual(['NORMAL', 'LOCKDOWN']);
  });

  it('toolgate mode set / show: persisted in the journal with the reason; bad input is a usage error', async () => {
    const root = makeTempDir('toolgate-mode-cli-');
    const set = await runCliAsync([
      'mode',
      'set',
      'degraded',
      '--reason',
      'disk nearly full',
      '--root',
      root,
    ]);
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout).toBe('NORMAL → DEGRADED: disk nearly full\n');
    const show = await runCliAsync(['mode', 'show', '--json', '--root', root]);
    const shown = JSON.parse(show.stdout) as {
      mode: string;
      source: string;
      history: { reason: string; actor: string }[];
    };
    expect(shown).toMatchObject({ mode: 'DEGRADED', source: 'journal' });
    expect(shown.history[0]?.reason).toBe('disk nearly full');
    expect(shown.history[0]?.actor).toMatch(/^cli:/);
    const text = await runCliAsync(['mode', 'show', '--root', root]);
    expect(text.stdout).toMatch(/^DEGRADED \(set .* by cli:.*: disk nearly full\)/);
    for (const args of [
      ['mode', 'set', 'PANIC', '--reason', 'x'],
      ['mode', 'set', 'ALERT', '--reason', '  '],
      ['mode', 'show', '--limit', '99999999999999999999'],
      ['journal', 'prune', '--older-than', '999999999d'],
    ]) {
      const r = await runCliAsync([...args, '--root', root]);
      expect(r.status, args.join(' ')).toBe(2);
    }
    expect(statusLine('idle', 120, { scrollable: false, governance: 'DEGRADED' })).toMatch(/^mode DEGRADED/);
    expect(statusLine('idle', 20, { scrollable: false, governance: 'LOCKDOWN' })).toMatch(/mode LOCKDOWN/);
  });

  it('toolgate mcp: a mode set from another process makes the server send tools/list_changed and list only what may run', async () => {
    const root = makeTempDir('toolgate-mode-mcp-');
    const client = new Client({ name: 't', version: '0' });
    let changed = 0;
    let notify: (() => void) | undefined;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed++;
      notify?.();
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    try {
      const names = async () => (await client.listTools()).tools.map((t) => t.name);
      expect(await names()).toContain('delete_file');
      const told = new Promise<void>((resolve) => {
        notify = resolve;
      });
      const set = await runCliAsync(['mode', 'set', 'LOCKDOWN', '--reason', 'incident', '--root', root]);
      expect(set.status, set.stderr).toBe(0);
      await told; // event-driven: the journal's WAL changed
      expect(changed).toBe(1);
      const locked = await names();
      expect(locked).toContain('read_file');
      for (const gone of ['delete_file', 'write_file', 'run_command']) expect(locked).not.toContain(gone);
      const refused = await client.callTool({ name: 'write_file', arguments: { path: 'x', content: 'x' } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
