import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { createToolgate } from '../../src/toolgate.js';
import { OsSandbox } from '../../src/tools/shell/os-sandbox.js';
import { makeTempDir } from '../helpers/workspace.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

function gate(root: string, runCommand: Record<string, unknown> = {}, sandbox: Record<string, unknown> = {}) {
  return createToolgate({
    config: validateConfig({
      tools: { approval: { denylist: [] }, run_command: { sandbox: 'os', ...runCommand }, sandbox },
    }),
    roots: [root],
    approver: approveAll,
  });
}

async function run(g: ReturnType<typeof gate>, command: string) {
  const [r] = await g.execute([{ id: `c${Math.random()}`, name: 'run_command', arguments: { command } }]);
  if (!r) throw new Error('no result');
  return r;
}

describe('run_command under the OS sandbox (bubblewrap via sandbox-runtime)', () => {
  it('bubblewrap and socat are installed here (.ci/run installs them)', async () => {
    expect(await OsSandbox.missing()).toEqual([]);
  });

  it('writes only inside the roots', async () => {
    const base = makeTempDir('toolgate-os-');
    const root = path.join(base, 'root');
    mkdirSync(root);
    const g = gate(root);
    const inside = await run(g, 'echo in > inside.txt && cat inside.txt');
    expect(inside.content).toBe('in\n');
    // Outside the roots: system directories are read-only, and the rest of the view is private
    // scratch space the command's writes never leave (issue #29 §7).
    const outside = await run(g, `echo pwned > ${base}/outside.txt`);
    expect(existsSync(path.join(base, 'outside.txt'))).toBe(false);
    expect(outside.content).not.toContain('pwned');
    await run(g, 'touch /root/toolgate-should-not-exist');
    expect(existsSync('/root/toolgate-should-not-exist')).toBe(false);
    expect((await run(g, 'touch /etc/toolgate-should-not-exist')).ok).toBe(false);
    expect(existsSync('/etc/toolgate-should-not-exist')).toBe(false);
  });

  it("the sandbox's denied patterns are denied to the command too (denying .env stops `cat .env`)", async () => {
    const root = makeTempDir('toolgate-os-');
    writeFileSync(path.join(root, '.env'), 'API_SECRET=hunter2\n');
    mkdirSync(path.join(root, 'keys'));
    writeFileSync(path.join(root, 'keys', 'server.pem'), 'PEM-SECRET\n');
    writeFileSync(path.join(root, 'toolgate.toml'), '[tools]\n');
    writeFileSync(path.join(root, 'ok.txt'), 'fine\n');
    const g = gate(root, {}, { denied_patterns: ['**/.env'] });
    expect((await run(g, 'cat ok.txt')).content).toBe('fine\n');
    for (const cmd of ['cat .env', 'cat keys/server.pem', 'cat toolgate.toml', 'echo x >> toolgate.toml']) {
      const r = await run(g, cmd);
      expect(r.ok, cmd).toBe(false);
      expect(r.content).not.toMatch(/hunter2|PEM-SECRET/);
    }
  });

  it('secrets stay out of reach: the scrubbed environment, no view of other processes, denied names outside the roots (issue #13)', async () => {
    const root = makeTempDir('toolgate-os-');
    const home = makeTempDir('toolgate-os-home-');
    mkdirSync(path.join(home, '.ssh'));
    writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE-KEY-MATERIAL\n');
    const saved = { home: process.env.HOME, token: process.env.SERVICE_TOKEN };
    process.env.HOME = home;
    process.env.SERVICE_TOKEN = 'tok-SECRET-42';
    try {
      const g = gate(root);
      const environ = await run(
        g,
        "tr '\\0' '\\n' < /proc/self/environ; echo; tr '\\0' '\\n' < /proc/$PPID/environ",
      );
      expect(environ.content).not.toMatch(/tok-SECRET-42/);
      // A PID namespace: toolgate and everything else on the machine are not there to read.
      const pids = await run(g, 'ls /proc | grep -c "^[0-9]"');
      expect(Number(pids.content.trim())).toBeLessThan(20);
      const key = await run(g, `cat ${path.join(home, '.ssh', 'id_rsa')}`);
      expect(key.ok).toBe(false);
      expect(key.content).not.toMatch(/PRIVATE-KEY-MATERIAL/);
      await g.close();
    } finally {
      if (saved.home === undefined) delete process.env.HOME;
      else process.env.HOME = saved.home;
      if (saved.token === undefined) delete process.env.SERVICE_TOKEN;
      else process.env.SERVICE_TOKEN = saved.token;
    }
  });

  it('toolgate exec with sandbox = "os" exits once it has printed its results (issue #13)', () => {
    const root = makeTempDir('toolgate-os-');
    // Named with --config: a project's own toolgate.toml may only tighten the policy (issue #29 §6).
    const config = path.join(makeTempDir('toolgate-os-config-'), 'toolgate.toml');
    writeFileSync(
      config,
      '[tools.approval]\ndenylist = []\n[tools.run_command]\nallow = ["echo"]\nsandbox = "os"\n',
    );
    const started = Date.now();
    const r = spawnSync(
      process.execPath,
      [path.join(HERE, '../../bin/toolgate.js'), 'exec', '--no-journal', '--config', config],
      {
        cwd: root,
        input: JSON.stringify([{ id: '1', name: 'run_command', arguments: { command: 'echo inside' } }]),
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)[0].content).toBe('inside\n');
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('the network is off unless hosts are allowed', async () => {
    const server = createServer((_req, res) => res.end('reached-server'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const root = makeTempDir('toolgate-os-');
      const r = await run(
        gate(root),
        `${process.execPath} -e "fetch('http://127.0.0.1:${port}').then(r=>r.text()).then(console.log,()=>console.log('blocked'))"`,
      );
      expect(r.content).not.toContain('reached-server');
      expect(r.content).toContain('blocked');
    } finally {
      server.close();
    }
  });

  it('fails closed, saying what is missing, when the sandbox cannot start', () => {
    const script = path.join(HERE, 'os-sandbox-missing.mjs');
    const out = spawnSync(process.execPath, [script, makeTempDir('toolgate-os-')], {
      encoding: 'utf8',
      env: { PATH: '/nonexistent' },
    });
    const result = JSON.parse(out.stdout) as { ok: boolean; content: string };
    expect(result.ok).toBe(false);
    expect(result.content).toMatch(/OS sandbox cannot start .*bubblewrap|bwrap/);
    expect(result.content).toMatch(/apt-get install bubblewrap socat/);
  });
});
