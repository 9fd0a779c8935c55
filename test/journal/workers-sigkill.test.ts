import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, watch } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresJournal } from '../../src/journal/postgres/postgres-journal.js';
import { REPO } from '../cli/run-cli.js';
import { type PgServer, startPostgres } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue #17 §2: three workers on one PostgreSQL journal, killed (SIGKILL) at random moments while
 * batches flow and started again; the batches of a dead worker are taken over when its lease runs
 * out. Afterwards every batch is settled exactly once, no call ran twice (each side effect appends
 * its call id to a counter file), and nothing is lost: every call that ran is journaled.
 */
const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lease-worker.mjs');
const BIN = path.join(REPO, 'bin', 'toolgate.js');
let server: PgServer;
beforeAll(() => {
  server = startPostgres();
}, 60_000);
afterAll(() => server?.stop());

/** The number of lines in the counter file once it has at least `n`: woken by watch events on its directory. */
function counterReaches(counter: string, n: number, deadlineMs = 90_000): Promise<number> {
  const lines = () => (existsSync(counter) ? readFileSync(counter, 'utf8').split('\n').length - 1 : 0);
  return new Promise((resolve, reject) => {
    const watcher = watch(path.dirname(counter), () => check());
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`the workers made no progress: ${lines()} side effects, waited for ${n}`));
    }, deadlineMs);
    const check = () => {
      const now = lines();
      if (now < n) return;
      clearTimeout(timer);
      watcher.close();
      resolve(now);
    };
    check();
  });
}

describe('workers and leases under SIGKILL (issue #17 §2)', () => {
  it('3 workers and a console on one database, 24 SIGKILLs: every batch settled once, no side effect twice, nothing lost', async () => {
    const url = server.createDatabase();
    const dir = makeTempDir('toolgate-workers-');
    const counter = path.join(dir, 'counter.txt');
    const start = () =>
      spawn(process.execPath, [WORKER, url, counter], { stdio: ['ignore', 'ignore', 'pipe'] });
    // The web console on the same database all along.
    const console_ = spawn(
      process.execPath,
      [BIN, 'serve', '--root', dir, '--journal', url, '--http', '127.0.0.1:0'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const [consoleUrl, consoleToken] = await new Promise<[string, string]>((resolve) => {
      console_.stdout?.on('data', (d: Buffer) => {
        const m = /open (http:\/\/127\.0\.0\.1:\d+)\/login\?code=[0-9a-f]+ .*the token ([0-9a-f]+)\n/.exec(
          d.toString(),
        );
        if (m) resolve([m[1] as string, m[2] as string]);
      });
    });
    const workers: ChildProcess[] = [start(), start(), start()];
    const errors: string[] = [];
    for (const w of workers) w.stderr?.on('data', (d: Buffer) => errors.push(d.toString()));
    // Each kill waits for work to have happened since the last one (a new side effect in the
    // counter file, seen by a watch event), so the kills land among running batches however loaded
    // the machine is; when in the batch a worker dies is left to chance.
    let seen = await counterReaches(counter, 3);
    for (let kill = 0; kill < 24; kill++) {
      seen = await counterReaches(counter, seen + 1);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 60)));
      const i = Math.floor(Math.random() * workers.length);
      workers[i]?.kill('SIGKILL');
      const next = start();
      next.stderr?.on('data', (d: Buffer) => errors.push(d.toString()));
      workers[i] = next;
    }
    await counterReaches(counter, seen + 1);
    // Dead, not only signalled: then no renewal can come from them; the drain waits for every
    // lease they held to run out (lease-worker.mjs), however late the last renewal landed.
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.exitCode !== null || w.signalCode !== null) return resolve();
            w.once('exit', () => resolve());
            w.kill('SIGKILL');
          }),
      ),
    );
    const drain = spawnSync(process.execPath, [WORKER, url, counter, 'drain'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(drain.stderr).toBe('');
    expect(drain.status).toBe(0);
    expect(errors.join('')).toBe(''); // a worker never failed on its own, only by being killed

    const journal = PostgresJournal.open(url);
    try {
      expect(journal.incompleteBatches()).toEqual([]);
      const ran = existsSync(counter) ? readFileSync(counter, 'utf8').trim().split('\n') : [];
      const times = new Map<string, number>();
      for (const id of ran) times.set(id, (times.get(id) ?? 0) + 1);
      const twice = [...times].filter(([, n]) => n > 1);
      expect(twice).toEqual([]); // no side effect twice
      const calls = [...journal.exportCalls(0)];
      const batches = new Set(calls.map((c) => c.batch));
      // Every kill waited for a new side effect: at least 3 + 24 + 1 happened, each journaled.
      expect(ran.length).toBeGreaterThanOrEqual(28);
      expect(batches.size).toBeGreaterThan(0);
      const statuses = new Map<string, number>();
      for (const c of calls) statuses.set(c.status, (statuses.get(c.status) ?? 0) + 1);
      // Every call settled: done, or unknown where its worker died while it ran.
      expect([...statuses.keys()].every((s) => s === 'done' || s === 'unknown')).toBe(true);
      for (const c of calls.filter((c) => c.tool === 'count')) {
        const n = times.get(c.callId) ?? 0;
        if (c.status === 'done')
          expect(n).toBe(1); // it ran, exactly once
        else expect(n).toBeLessThanOrEqual(1); // unknown: it may have run, never twice
      }
      // Settled once: each call's result reached its session's conversation exactly once.
      for (const session of new Set(calls.map((c) => c.session))) {
        const told = new Map<string, number>();
        for (const m of journal.messages(session))
          if (m.role === 'tool' && m.callId) told.set(m.callId, (told.get(m.callId) ?? 0) + 1);
        for (const c of calls.filter((c) => c.session === session)) expect(told.get(c.callId)).toBe(1);
      }
      // Nothing lost: every side effect that happened belongs to a journaled call.
      const journaled = new Set(calls.map((c) => c.callId));
      expect(ran.filter((id) => !journaled.has(id))).toEqual([]);
      // The console served the whole time, and shows the batches the workers left, all settled.
      const page = await fetch(`${consoleUrl}/batches`, {
        headers: { authorization: `Bearer ${consoleToken}` },
      }).then((r) => r.text());
      const newest = journal.recentBatches(1)[0]?.id ?? '';
      expect(page).toContain(newest.slice(0, 8));
      expect(page).not.toMatch(/>open<|>awaiting_approval</);
      console.log(
        `workers: ${batches.size} batches, ${calls.length} calls, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
    } finally {
      journal.close();
      console_.kill('SIGTERM');
    }
  }, 120_000);
});
