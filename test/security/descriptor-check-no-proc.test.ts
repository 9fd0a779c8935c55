import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../cli/run-cli.js';
import { useWorkspace } from '../helpers/workspace.js';

/**
 * Issue #31 §4: where the descriptor check cannot run, file tools refuse instead of skipping it.
 * Run for real on a Linux system without /proc: bubblewrap mounts an empty tmpfs over it (needs
 * the built dist/, `npm run build`).
 */
const OVERRIDE = 'TOOLGATE_UNSAFE_NO_DESCRIPTOR_CHECK';

function withoutProc(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  const env: Record<string, string | undefined> = { ...process.env, FORCE_COLOR: '0', ...options.env };
  if (!options.env?.[OVERRIDE]) delete env[OVERRIDE];
  const run = spawnSync('bwrap', ['--dev-bind', '/', '/', '--tmpfs', '/proc', process.execPath, ...args], {
    cwd: REPO,
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
    env,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const READ = JSON.stringify([{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }]);

describe('issue #31 §4: file tools on Linux without /proc (bubblewrap, for real)', () => {
  const ws = useWorkspace();

  it('toolgate exec refuses to start, the fix first, and runs nothing', () => {
    ws.file('a.txt', 'hello\n');
    const run = withoutProc(
      [path.join(REPO, 'bin', 'toolgate.js'), 'exec', '--root', ws.dir(), '--no-journal'],
      {
        input: JSON.stringify([
          { id: 'w1', name: 'write_file', arguments: { path: 'made.txt', content: 'x' } },
        ]),
      },
    );
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^toolgate: toolgate's file tools need Linux with \/proc mounted: run toolgate there, or set TOOLGATE_UNSAFE_NO_DESCRIPTOR_CHECK=1 /,
    );
    expect(run.stderr).toContain('is /proc mounted?');
    expect(run.stderr).not.toContain('internal error');
    expect(run.status).toBe(2);
    expect(existsSync(path.join(ws.dir(), 'made.txt'))).toBe(false);
  });

  it('with the override set knowingly, the file tools run', () => {
    ws.file('a.txt', 'hello\n');
    const run = withoutProc(
      [path.join(REPO, 'bin', 'toolgate.js'), 'exec', '--root', ws.dir(), '--no-journal'],
      {
        input: READ,
        env: { [OVERRIDE]: '1' },
      },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject([{ id: 'r1', ok: true, content: 'hello\n' }]);
  });

  it('safe-fs used directly (no gate) refuses at first use unless overridden', () => {
    ws.file('a.txt', 'hello\n');
    const worker = path.join(REPO, 'test', 'security', 'descriptor-check-worker.mjs');
    const refused = withoutProc([worker, ws.dir()]);
    expect(refused.stderr).toBe('');
    const results = JSON.parse(refused.stdout) as Record<string, string>;
    for (const outcome of Object.values(results))
      expect(outcome).toMatch(/^ExecutionFailed: toolgate's file tools need Linux with \/proc mounted/);
    expect(existsSync(path.join(ws.dir(), 'b.txt'))).toBe(false);

    const overridden = withoutProc([worker, ws.dir()], { env: { [OVERRIDE]: '1' } });
    expect(JSON.parse(overridden.stdout)).toEqual({ readSmall: 'ok', openForRead: 'ok', write: 'ok' });
    expect(existsSync(path.join(ws.dir(), 'b.txt'))).toBe(true);
  });
});
