import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AutoGovernor } from '../../src/policy/auto-governor.js';
import { trustProject } from '../cli/run-cli.js';
import { chatStream, textAnswer } from '../helpers/provider-streams.js';
import { startReplayServer } from '../helpers/replay-server.js';
import { replayModelArgs, runCliAsync } from '../helpers/run-cli-async.js';
import { makeTempDir } from '../helpers/workspace.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const noKeys = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', GEMINI_API_KEY: '' };
const failed = (name: string, type: string, message = 'no', code?: string) =>
  ({
    id: '1',
    name,
    ok: false,
    content: message,
    error: { type, message },
    latencyMs: 0,
    ...(code ? { metadata: { code } } : {}),
  }) as never;

describe('automatic governance transitions (issue #16 §6)', () => {
  it('on a real 4 MiB tmpfs filled to the brim: DEGRADED (writes stop, reads go on), RECOVERY once freed, NORMAL after the quiet period; ENOSPC from a tool degrades too', () => {
    const root = makeTempDir('toolgate-tmpfs-');
    const journal = makeTempDir('toolgate-tmpfs-journal-');
    // An unprivileged user namespace mounts a real tmpfs (as bubblewrap does), no root needed.
    const r = spawnSync(
      'unshare',
      [
        '-rm',
        'sh',
        '-c',
        `mount -t tmpfs -o size=4m tmpfs '${root}' && exec '${process.execPath}' '${path.join(HERE, 'tmpfs-worker.mjs')}' '${root}' '${journal}'`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const steps = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { step: string; results: string[]; mode: string; reason: string })
        .map((s) => [s.step, s]),
    );
    expect(steps.fill).toMatchObject({ results: ['ok'], mode: 'NORMAL' });
    expect(steps['read-when-full']).toMatchObject({ results: ['ok'], mode: 'DEGRADED' });
    expect(steps['read-when-full']?.reason).toMatch(/^\[disk\] \d+ bytes free .* min_free_bytes \(1048576\)/);
    expect(steps['write-when-degraded']).toMatchObject({ results: ['Denied'], mode: 'DEGRADED' });
    expect(steps['after-freeing']).toMatchObject({ results: ['ok'], mode: 'RECOVERY' });
    expect(steps['after-quiet']).toMatchObject({ results: ['ok'], mode: 'NORMAL' });
    expect(steps['write-again']).toMatchObject({ results: ['ok'], mode: 'NORMAL' });
    expect(steps.enospc).toMatchObject({ results: ['ExecutionFailed'], mode: 'DEGRADED' });
    expect(steps.enospc?.reason).toMatch(/^\[resource\]/);
    expect(steps['write-after-enospc']).toMatchObject({ results: ['Denied'], mode: 'DEGRADED' });
  });

  it('a scripted model probing the fence through toolgate run: LOCKDOWN after the configured refusals, logged in the journal with its cause', async () => {
    const root = makeTempDir('toolgate-probe-');
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      '[tools.governance.auto]\nenabled = true\nlockdown_after_refusals = 3\nwindow_seconds = 60\n',
    );
    trustProject(root); // a project's own config applies in full once trusted (issue #29 §6)
    const probe = (id: string, p: string) => ({ id, name: 'read_file', args: JSON.stringify({ path: p }) });
    const model = await startReplayServer([
      { body: chatStream({ calls: [probe('p1', '../../etc/passwd'), probe('p2', '/etc/shadow')] }) },
      { body: chatStream({ calls: [probe('p3', '.git/config'), probe('p4', '../x')] }) },
      {
        body: chatStream({
          calls: [{ id: 'w', name: 'write_file', args: '{"path":"a.txt","content":"a"}' }],
        }),
      },
      { body: textAnswer('openai', 'I give up.') },
    ]);
    try {
      const run = await runCliAsync(
        ['run', 'look around', ...replayModelArgs(model.url), '--approve', 'all'],
        {
          cwd: root,
          env: noKeys,
        },
      );
      expect(run.status, run.stderr).toBe(0);
      const show = await runCliAsync(['mode', 'show', '--json'], { cwd: root });
      const shown = JSON.parse(show.stdout) as { mode: string; history: { actor: string; reason: string }[] };
      expect(shown.mode).toBe('LOCKDOWN');
      expect(shown.history[0]).toMatchObject({
        actor: 'auto',
        reason: expect.stringMatching(/^\[probing\] \d+ refused calls within 60 s/),
      });
      // the write after the lockdown was refused, even with --approve all
      const journal = await runCliAsync(['journal', 'list', '--json'], { cwd: root });
      const batches = JSON.parse(journal.stdout) as { calls: number; failed: number }[];
      expect(batches[0]).toMatchObject({ calls: 1, failed: 1 });
    } finally {
      await model.close();
    }
  });

  it('refusals add up across separate toolgate exec runs on one journal: each run alone is under the threshold', async () => {
    const root = makeTempDir('toolgate-probe-exec-');
    writeFileSync(
      path.join(root, 'toolgate.toml'),
      '[tools.governance.auto]\nenabled = true\nlockdown_after_refusals = 3\nwindow_seconds = 60\n',
    );
    trustProject(root); // a project's own config applies in full once trusted (issue #29 §6)
    for (const p of ['../a', '../b', '../c']) {
      const run = await runCliAsync(['exec'], {
        cwd: root,
        input: JSON.stringify([{ id: '1', name: 'read_file', arguments: { path: p } }]),
      });
      expect(run.status, run.stderr).toBe(0);
    }
    const show = await runCliAsync(['mode', 'show', '--json'], { cwd: root });
    expect(JSON.parse(show.stdout)).toMatchObject({ mode: 'LOCKDOWN' });
  });

  it('never lowers a mode a person set; steps down only what it set, once its cause is gone and the window passed', () => {
    let t = 0;
    let free = 10_000;
    const governor = new AutoGovernor(
      { minFreeBytes: 1000, lockdownAfterRefusals: 2, windowMs: 1000, quietMs: 5000 },
      () => ['/x'],
      () => t,
      () => free,
    );
    // a person's LOCKDOWN is never stepped down
    expect(
      governor.beforeBatch({ mode: 'LOCKDOWN', record: { actor: 'cli:ops', reason: 'manual', at: 0 } }),
    ).toBeUndefined();
    // nor lowered by a lesser cause
    free = 10;
    expect(governor.beforeBatch({ mode: 'LOCKDOWN' })).toBeUndefined();
    expect(governor.beforeBatch({ mode: 'ALERT' })).toMatchObject({ mode: 'DEGRADED' });
    free = 10_000;
    // probing: two refusals in the window
    expect(
      governor.afterBatch({ mode: 'NORMAL' }, [failed('read_file', 'SandboxViolation')]),
    ).toBeUndefined();
    t = 500;
    expect(governor.afterBatch({ mode: 'NORMAL' }, [failed('read_file', 'Denied')])).toMatchObject({
      mode: 'LOCKDOWN',
    });
    const auto = {
      mode: 'LOCKDOWN' as const,
      record: { actor: 'auto', reason: '[probing] 2 refused calls', at: 500 },
    };
    t = 1000;
    expect(governor.beforeBatch(auto)).toBeUndefined(); // the window has not passed
    t = 1600;
    expect(governor.beforeBatch(auto)).toMatchObject({
      mode: 'RECOVERY',
      reason: expect.stringMatching(/^\[probing-gone\]/),
    });
    const recovering = {
      mode: 'RECOVERY' as const,
      record: { actor: 'auto', reason: '[probing-gone] …', at: 1600 },
    };
    t = 4000;
    expect(governor.beforeBatch(recovering)).toBeUndefined();
    t = 6700;
    expect(governor.beforeBatch(recovering)).toMatchObject({ mode: 'NORMAL' });
    // an ENOMEM from the system (its errno, not its text) is a resource failure
    expect(
      governor.afterBatch({ mode: 'NORMAL' }, [
        failed('run_command', 'ExecutionFailed', 'spawn failed', 'ENOMEM'),
      ]),
    ).toMatchObject({ mode: 'DEGRADED', reason: '[resource] a call failed with ENOMEM' });
  });

  it('a model cannot steer it with words: ENOSPC in a path is no resource failure, and a refusal that says ENOSPC still counts as a refusal', () => {
    const governor = new AutoGovernor(
      { minFreeBytes: 1, lockdownAfterRefusals: 3, windowMs: 60_000, quietMs: 1000 },
      () => [],
      () => 0,
    );
    expect(
      governor.afterBatch({ mode: 'NORMAL' }, [
        failed('read_file', 'NotFound', '"ENOSPC-notes.txt" does not exist'),
      ]),
    ).toBeUndefined();
    const probes = [1, 2, 3].map((i) =>
      failed('read_file', 'SandboxViolation', `path "/etc/ENOSPC${i}" out of memory`),
    );
    expect(governor.afterBatch({ mode: 'NORMAL' }, probes)).toMatchObject({ mode: 'LOCKDOWN' });
  });

  it("steps down to the person's mode, never below it", () => {
    let t = 0;
    const governor = new AutoGovernor(
      { minFreeBytes: 1, lockdownAfterRefusals: 1, windowMs: 1000, quietMs: 1000 },
      () => [],
      () => t,
    );
    expect(governor.afterBatch({ mode: 'ALERT', floor: 'ALERT' }, [failed('x', 'Denied')])).toMatchObject({
      mode: 'LOCKDOWN',
    });
    t = 2000;
    const locked = {
      mode: 'LOCKDOWN' as const,
      record: { actor: 'auto', reason: '[probing] 1', at: 0 },
      floor: 'ALERT' as const,
    };
    expect(governor.beforeBatch(locked)).toMatchObject({ mode: 'ALERT' }); // straight back to the person's ALERT
    const alertByAuto = {
      mode: 'ALERT' as const,
      record: { actor: 'auto', reason: '[probing-gone] x', at: 2000 },
      floor: 'ALERT' as const,
    };
    t = 10_000;
    expect(governor.beforeBatch(alertByAuto)).toBeUndefined(); // never below it
    const recovering = {
      mode: 'RECOVERY' as const,
      record: { actor: 'auto', reason: 'x', at: 0 },
      floor: 'NORMAL' as const,
    };
    expect(governor.beforeBatch(recovering)).toMatchObject({ mode: 'NORMAL' });
  });
});
