import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { createSystemLogsTool } from '../../src/tools/system/system-logs.js';
import { makeTempDir } from '../helpers/workspace.js';

function gate(root: string) {
  return createToolgate({ config: validateConfig({}), roots: [root], approver: approveAll });
}

async function call(root: string, name: string, args: Record<string, unknown>, g = gate(root)) {
  const [r] = await g.execute([{ id: '1', name, arguments: args }]);
  if (!r) throw new Error('no result');
  return r;
}

describe('system tools (seed 002) on this machine', () => {
  const root = makeTempDir('toolgate-sys-');

  it('system_metrics_snapshot reports CPU, memory, disks of the roots and uptime', async () => {
    const r = await call(root, 'system_metrics_snapshot', {});
    expect(r.ok).toBe(true);
    const s = JSON.parse(r.content);
    expect(s.cpu.cores).toBe(os.cpus().length);
    expect(s.cpu.usagePercent).toBeGreaterThanOrEqual(0);
    expect(s.cpu.loadAverage).toHaveLength(3);
    expect(s.memory.totalBytes).toBe(os.totalmem());
    expect(s.disks[0]).toMatchObject({ path: '.' });
    expect(s.disks[0].totalBytes).toBeGreaterThan(0);
    expect(s.uptimeSeconds).toBeGreaterThan(0);
    expect(Array.isArray(s.gpus)).toBe(true);
  });

  it('check_process_health finds processes by pid and by name, and says when one is not running', async () => {
    const r = await call(root, 'check_process_health', {
      pids: [process.pid, 999_999_999 % 4_194_304],
      names: ['toolgate-no-such-process'],
    });
    const { processes } = JSON.parse(r.content);
    const me = processes.find((p: { pid: number }) => p.pid === process.pid);
    expect(me).toMatchObject({ running: true });
    expect(me.rssBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(me.ageSeconds).toBeGreaterThanOrEqual(0);
    expect(processes.find((p: { name: string }) => p.name === 'toolgate-no-such-process')).toMatchObject({
      running: false,
    });
    const byName = JSON.parse(
      (await call(root, 'check_process_health', { names: [me.name] })).content,
    ).processes;
    expect(byName.some((p: { pid: number }) => p.pid === process.pid)).toBe(true);
    expect((await call(root, 'check_process_health', {})).error?.type).toBe('BadArgs');
  });

  it('read_system_logs reads the syslog file with a filter and a line cap (journalctl off)', async () => {
    const log = path.join(root, 'syslog');
    const lines = Array.from(
      { length: 50 },
      (_, i) => `Nov 22 host app[${i}]: ${i % 2 ? 'error' : 'info'} line ${i}`,
    );
    writeFileSync(log, `${lines.join('\n')}\n`);
    const g = gate(root);
    g.registry.replace(createSystemLogsTool({ syslogFiles: [log], useJournalctl: false }));
    const r = await call(root, 'read_system_logs', { filter: 'ERROR', lines: 3 }, g);
    expect(r.content.split('\n')).toEqual([
      'Nov 22 host app[45]: error line 45',
      'Nov 22 host app[47]: error line 47',
      'Nov 22 host app[49]: error line 49',
    ]);
    expect(r.metadata).toMatchObject({ source: log, lines: 3 });
    const none = createSystemLogsTool({ syslogFiles: [path.join(root, 'missing')], useJournalctl: false });
    g.registry.replace(none);
    expect((await call(root, 'read_system_logs', {}, g)).error?.type).toBe('NotFound');
  });

  it('read_system_logs is medium risk: it asks', () => {
    const planned = gate(root).plan([{ id: '1', name: 'read_system_logs', arguments: {} }]);
    expect(planned[0]?.disposition.kind).toBe('needs_approval');
  });

  it('git_status reports branch, staged, unstaged and untracked files from porcelain v2', async () => {
    const repo = makeTempDir('toolgate-git-');
    const git = (...a: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...a], {
        cwd: repo,
        stdio: 'ignore',
      });
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    writeFileSync(path.join(repo, 'b.txt'), 'b\n');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    writeFileSync(path.join(repo, 'a.txt'), 'changed\n');
    writeFileSync(path.join(repo, 'c.txt'), 'new\n');
    git('add', 'c.txt');
    writeFileSync(path.join(repo, 'd with space.txt'), 'untracked\n');
    const r = await call(repo, 'git_status', {});
    expect(JSON.parse(r.content)).toEqual({
      branch: 'main',
      upstream: null,
      ahead: 0,
      behind: 0,
      staged: ['c.txt'],
      unstaged: ['a.txt'],
      untracked: ['d with space.txt'],
      conflicted: [],
    });
    expect((await call(makeTempDir('toolgate-nogit-'), 'git_status', {})).error?.type).toBe('BadArgs');
  });

  it("git_status does not let the repository's config run a program (fsmonitor)", async () => {
    const repo = makeTempDir('toolgate-git-');
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const marker = path.join(makeTempDir(), 'pwned');
    execFileSync('git', ['config', 'core.fsmonitor', `touch ${marker}; false`], { cwd: repo });
    await call(repo, 'git_status', {});
    expect(existsSync(marker)).toBe(false);
  });
});
