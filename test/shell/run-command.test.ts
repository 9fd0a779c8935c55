import { execSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import type { ToolEvent } from '../../src/core/tool-event.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'big-output-worker.mjs');

function gate(root: string, tools: Record<string, unknown> = {}) {
  return createToolgate({
    config: validateConfig({ tools: { approval: { denylist: [] }, ...tools } }),
    roots: [root],
    approver: approveAll,
  });
}

async function run(
  root: string,
  args: Record<string, unknown>,
  tools: Record<string, unknown> = {},
  signal?: AbortSignal,
) {
  const events: ToolEvent[] = [];
  const [r] = await gate(root, tools).execute([{ id: '1', name: 'run_command', arguments: args }], {
    onEvent: (e) => events.push(e),
    ...(signal ? { signal } : {}),
  });
  if (!r) throw new Error('no result');
  return { r, events };
}

/** Processes whose command line holds `marker` (the orphan check). */
function processesWith(marker: string): string[] {
  const out = spawnSync('pgrep', ['-af', marker], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter((l) => l.includes(marker) && !l.includes('pgrep'));
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('run_command execution (FR-TOOL-CMD-01, FR-EXE-03..06)', () => {
  const root = makeTempDir('toolgate-rc-');

  it('Property 25/26: returns stdout, appends [stderr], and streams chunks as events', async () => {
    const { r, events } = await run(root, { command: 'echo out; echo err >&2' });
    expect(r).toMatchObject({ ok: true, content: 'out\n\n\n[stderr]\nerr\n' });
    const text = (type: string) =>
      events
        .filter((e) => e.type === type)
        .map((e) => (e as { chunk: string }).chunk)
        .join('');
    expect(text('stdout')).toBe('out\n');
    expect(text('stderr')).toBe('err\n');
    expect(events[0]?.type).toBe('started');
    expect(events.at(-1)?.type).toBe('completed');
  });

  it('events carry whole characters: a UTF-8 character split across two writes is never shown as U+FFFD', async () => {
    const { r, events } = await run(root, {
      command: "printf 'price: \\342\\202'; sleep 0.2; printf '\\254 and \\033[31mred\\n'",
    });
    expect(r.ok).toBe(true);
    const chunks = events.filter((e) => e.type === 'stdout').map((e) => (e as { chunk: string }).chunk);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks.join('')).toBe('price: € and red\n');
    expect(chunks.join('')).not.toContain('\ufffd');
  });

  it("stdout is a real pipe, not Node's socketpair (a producer writes to a pipe at full speed)", async () => {
    const { r } = await run(root, { command: 'stat -L -c %F /dev/stdout; stat -L -c %F /dev/stderr >&2' });
    expect(r.content).toBe('fifo\n\n\n[stderr]\nsocket\n');
  });

  it('a consumer that is behind pauses the command: what it holds stays bounded, and every byte arrives in order', async () => {
    // The consumer keeps at most ~1 MB: above that it answers with a promise settled when it has
    // worked its queue off, slowly. Without backpressure it would hold all 32 MB at once.
    const total = 32 * 1024 * 1024;
    writeFileSync(path.join(root, 'count.sh'), `seq 1 100000000 | head -c ${total}\n`);
    let held = 0;
    let peak = 0;
    let received = '';
    const [r] = await gate(root, { run_command: { allow: ['sh count.sh'] } }).execute(
      [{ id: '1', name: 'run_command', arguments: { command: 'sh count.sh' } }],
      {
        onEvent: (e) => {
          if (e.type !== 'stdout') return undefined;
          held += e.chunk.length;
          peak = Math.max(peak, held);
          received += e.chunk;
          if (held < 1024 * 1024) return undefined;
          return new Promise<void>((resolve) =>
            setTimeout(() => {
              held = 0;
              resolve();
            }, 20),
          );
        },
      },
    );
    expect(r?.ok).toBe(true);
    expect(received.length).toBe(total);
    expect(received).toBe(
      execSync(`seq 1 100000000 | head -c ${total}`, { maxBuffer: 2 * total }).toString(),
    );
    // One coalesced piece (64 KB) can be on its way when the consumer says it is behind.
    expect(peak).toBeLessThan(1024 * 1024 + 2 * 64 * 1024);
  });

  it('a non-zero exit is ExecutionFailed that still carries the exit code and the output', async () => {
    const { r } = await run(root, { command: 'echo partial; echo why >&2; exit 7' });
    expect(r.error?.type).toBe('ExecutionFailed');
    expect(r.content).toBe('run_command failed: exit code 7\npartial\n\n\n[stderr]\nwhy\n');
  });

  it('Property 28: runs in cwd, which must be inside the roots', async () => {
    mkdirSync(path.join(root, 'sub'), { recursive: true });
    expect((await run(root, { command: 'pwd' })).r.content).toBe(`${root}\n`);
    expect((await run(root, { command: 'pwd', cwd: 'sub' })).r.content).toBe(`${path.join(root, 'sub')}\n`);
    expect((await run(root, { command: 'pwd', cwd: '..' })).r.error?.type).toBe('SandboxViolation');
  });

  it('stdin is closed: a command waiting for input ends at once', async () => {
    expect((await run(root, { command: 'cat; echo done' })).r.content).toBe('done\n');
  });

  it('the environment is scrubbed by the default and the configured denylists (CFG-ENV-01)', async () => {
    process.env.TOOLGATE_TEST_API_KEY = 'k-secret';
    process.env.OPENAI_API_KEY = 'sk-secret';
    process.env.MY_CUSTOM_VAR = 'custom-secret';
    process.env.HARMLESS_VALUE = 'visible';
    try {
      const { r } = await run(root, { command: 'env' }, { environment: { denylist: ['MY_CUSTOM_*'] } });
      expect(r.content).toContain('HARMLESS_VALUE=visible');
      for (const secret of ['k-secret', 'sk-secret', 'custom-secret'])
        expect(r.content).not.toContain(secret);
    } finally {
      delete process.env.TOOLGATE_TEST_API_KEY;
      delete process.env.OPENAI_API_KEY;
      delete process.env.MY_CUSTOM_VAR;
      delete process.env.HARMLESS_VALUE;
    }
  });

  it('Property 27: a timeout stops the whole process group: no orphans, grandchildren included', async () => {
    const started = Date.now();
    const { r } = await run(root, { command: "sh -c 'sleep 311 & sleep 312'; sleep 313", timeout_ms: 300 });
    expect(r.error?.type).toBe('Timeout');
    expect(Date.now() - started).toBeLessThan(5000);
    await settle(200);
    expect(processesWith('sleep 31')).toEqual([]);
  });

  it('a background child left by the command does not outlive the call', async () => {
    const { r } = await run(root, { command: '(sleep 321 &) ; sleep 322 & echo started' });
    expect(r.content).toBe('started\n');
    await settle(200);
    expect(processesWith('sleep 32')).toEqual([]);
  });

  it('cancel stops the group: SIGTERM, then SIGKILL for what ignores it', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const { r } = await run(
      root,
      { command: "trap '' TERM; sleep 331" },
      { run_command: { grace_ms: 300 } },
      controller.signal,
    );
    expect(r.error?.type).toBe('Cancelled');
    await settle(600);
    expect(processesWith('sleep 331')).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('timeout_ms is capped by shell_commands_seconds', async () => {
    const { r } = await run(
      root,
      { command: 'sleep 5', timeout_ms: 60_000 },
      { timeouts: { shell_commands_seconds: 0.3 } },
    );
    expect(r.error?.type).toBe('Timeout');
  });

  it('output over the limit keeps the start and the end, within the limit', async () => {
    const { r } = await run(root, { command: 'seq 1 200000' }, { output: { max_bytes: 8192 } });
    expect(Buffer.byteLength(r.content)).toBeLessThanOrEqual(8192);
    expect(r.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(r.content).toMatch(/bytes of output omitted|output truncated/);
  });

  it('background: starts a job, returns its id at once; read_job_output shows status and output', async () => {
    const g = gate(root);
    const [started] = await g.execute([
      {
        id: '1',
        name: 'run_command',
        arguments: { command: 'echo begin; sleep 0.3; echo end; exit 4', background: true },
      },
    ]);
    expect(started?.content).toMatch(/^started background job job-1 \(pid \d+\)/);
    const read = async (args: Record<string, unknown>) => {
      const [r] = await g.execute([{ id: 'r', name: 'read_job_output', arguments: args }]);
      return r;
    };
    expect((await read({ id: 'job-1' }))?.content).toMatch(/^job job-1: running for/);
    await settle(700);
    const done = await read({ id: 'job-1' });
    expect(done?.content).toMatch(
      /^job job-1: exited with code 4\ncommand: .*\noutput \(10 bytes\):\nbegin\nend\n$/,
    );
    expect((await read({ id: 'job-9' }))?.error?.type).toBe('NotFound');
  });

  it('background: stop ends the whole job group; nothing is left behind', async () => {
    const g = gate(root);
    await g.execute([
      {
        id: '1',
        name: 'run_command',
        arguments: { command: "sh -c 'sleep 341 & sleep 342'", background: true },
      },
    ]);
    await settle(200);
    expect(processesWith('sleep 34').length).toBeGreaterThan(0);
    const [stopped] = await g.execute([
      { id: 'r', name: 'read_job_output', arguments: { id: 'job-1', stop: true } },
    ]);
    expect(stopped?.content).toMatch(/ended by SIG|exited with code/);
    await settle(300);
    expect(processesWith('sleep 34')).toEqual([]);
  });

  it('a command printing 1 GB keeps memory flat: peak RSS at most 120 MB, under 40 MB of it for the output (issue #14 item 7)', () => {
    // Run as the CLI runs (wasm at the baseline tier, see bin/toolgate.js); the worker sets up the
    // shell parser with a small command before it measures.
    const out = spawnSync(process.execPath, ['--liftoff-only', WORKER, root, String(1024 * 1024 * 1024)], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    const report = JSON.parse(out.stdout) as {
      ok: boolean;
      maxRss: number;
      rssBefore: number;
      contentBytes: number;
      metadata: { stdoutBytes: number };
    };
    expect(report.ok).toBe(true);
    expect(report.metadata.stdoutBytes).toBe(1024 * 1024 * 1024);
    expect(report.contentBytes).toBeLessThanOrEqual(102_400);
    expect(report.maxRss - report.rssBefore).toBeLessThan(40 * 1024 * 1024);
    expect(report.maxRss).toBeLessThanOrEqual(120 * 1024 * 1024);
  }, 180_000);
});
