import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { afterEach, describe, expect, it } from 'vitest';
import { startRipgrep } from '../../src/tools/fs/start-ripgrep.js';
import { runQuiet } from '../../src/tools/system/run-quiet.js';
import { makeTempDir } from '../helpers/workspace.js';

const SECRET = 'helper-env-secret-4711';
const planted = ['PGPASSWORD', 'TOOLGATE_MCP_USER_TOKENS', 'DATABASE_URL'] as const;

describe("issue #30 §8: toolgate's own helpers start without its credentials", () => {
  afterEach(() => {
    for (const name of planted) delete process.env[name];
  });

  it('a ripgrep child waiting on its input shows no credential in /proc/<pid>/environ (a command running meanwhile could read it)', async () => {
    process.env.PGPASSWORD = SECRET;
    process.env.TOOLGATE_MCP_USER_TOKENS = `alice:${SECRET}`;
    process.env.DATABASE_URL = `postgres://u:${SECRET}@db/x`;
    const dir = makeTempDir('toolgate-helper-env-');
    const fifo = path.join(dir, 'in');
    execFileSync('mkfifo', [fifo]);
    // Read-write so opening does not wait for a writer; ripgrep then blocks reading it.
    const fd = openSync(fifo, constants.O_RDWR);
    const rg = startRipgrep(rgPath, ['--no-config', 'x', '-'], { cwd: dir, stdinFd: fd });
    try {
      const pid = rg.child.pid;
      expect(pid).toBeTypeOf('number');
      const environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
      expect(environ).toContain('PATH='); // it has an environment, just not the secrets
      expect(environ).not.toContain(SECRET);
    } finally {
      rg.child.kill('SIGKILL');
      await rg.exited.catch(() => {});
      closeSync(fd);
    }
  });

  it('runQuiet (git, ps, journalctl helpers) passes the scrubbed environment by default', async () => {
    process.env.PGPASSWORD = SECRET;
    const out = await runQuiet('env', []);
    expect(out?.code).toBe(0);
    expect(out?.stdout).toContain('PATH=');
    expect(out?.stdout).not.toContain(SECRET);
  });
});
