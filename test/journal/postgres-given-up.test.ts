import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { PostgresJournal } from '../../src/journal/postgres/postgres-journal.js';
import { SyncPg } from '../../src/journal/postgres/sync-pg.js';
import { createToolgate } from '../../src/toolgate.js';
import { journalWith } from '../helpers/journal-with.js';
import { type PgServer, startPostgres } from '../helpers/postgres.js';
import { testTool } from '../helpers/tools.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * A batch whose first commit the server did not answer in time, which then landed after all
 * (review lead H1, issue #17 §2). Commits are held up for real: with `synchronous_standby_names`
 * naming a standby that does not exist, every COMMIT is written locally and then waits for it.
 * The model was told the batch did not run, so it must never run: the process marks it given up,
 * and whoever next meets the batch (a worker claiming it, a read of it, a listing of incomplete
 * batches or of questions) settles it as never run.
 */
let server: PgServer;
beforeAll(() => {
  server = startPostgres();
}, 60_000);
afterAll(() => server?.stop());

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await sleep(50);
  }
}

/** Commits held (on) or let through (off), for the whole server. */
function commitHold(admin: SyncPg) {
  return (on: boolean) => {
    admin.query(
      on
        ? "ALTER SYSTEM SET synchronous_standby_names = 'toolgate_nobody'"
        : 'ALTER SYSTEM RESET synchronous_standby_names',
    );
    admin.query('SELECT pg_reload_conf()');
  };
}

/**
 * Inside a hook that runs synchronously: blocks until the held batch has landed (a row is there),
 * then while its lease (300 ms) runs out.
 */
function blockUntilLandedAndExpired(raw: SyncPg): void {
  const wait = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 300 && raw.query('SELECT 1 FROM batches').rows.length === 0; i++)
    Atomics.wait(wait, 0, 0, 50);
  Atomics.wait(wait, 0, 0, 500);
}

/** A side effect that never finishes: its worker is as good as dead while it runs. */
const stall = testTool('stall', () => new Promise<string>(() => {}), { tier: 'side_effecting' });

/** Runs one write_file while commits are held, releases them, and waits for the batch to land. */
async function landGivenUpBatch(asks: boolean) {
  const root = makeTempDir('toolgate-given-up-');
  const url = server.createDatabase();
  const admin = SyncPg.connect(server.url(), 20_000);
  const raw = SyncPg.connect(url, 20_000);
  const journal = PostgresJournal.open(url, { timeoutMs: 1500 });
  const holdCommits = commitHold(admin);
  try {
    holdCommits(true);
    await sleep(300); // the server's processes read the new setting
    const gate = createToolgate({
      roots: [root],
      baseDir: root,
      journal,
      approver: approveAll,
      config: parseConfigText(asks ? '' : '[tools.approval]\nallowlist = ["write_file"]\n', 'toolgate.toml'),
      lease: { worker: 'first', ttlMs: 500 },
    });
    const [result] = await gate.execute([
      { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
    ]);
    holdCommits(false);
    // The held commit lands once the server stops waiting for the standby.
    const landed = () => raw.query<{ id: string; status: string }>('SELECT id, status FROM batches').rows;
    await until(() => landed().length === 1, 15_000);
    const [batch] = landed();
    expect(batch?.status).toBe(asks ? 'awaiting_approval' : 'open');
    await sleep(700); // its lease runs out
    return {
      root,
      url,
      result,
      id: batch?.id as string,
      written: () => existsSync(path.join(root, 'x.txt')),
    };
  } finally {
    holdCommits(false);
    admin.close();
    raw.close();
    journal.close();
  }
}

describe('a batch given up on, whose first commit lands later, never runs', () => {
  for (const meets of [
    'a worker claiming it',
    'a read of it',
    'a listing of incomplete batches',
    'a resume of it',
    'a discard of it',
  ] as const)
    it(`the model is told it did not run (no "a worker may still run it"); ${meets} settles it as never run`, async () => {
      const { url, result, id, written } = await landGivenUpBatch(false);
      expect(result?.ok).toBe(false);
      expect(result?.content).toMatch(/not executed: PostgreSQL did not answer/);
      expect(result?.content).not.toMatch(/a worker may still run/);
      const other = PostgresJournal.open(url);
      try {
        if (meets === 'a worker claiming it')
          expect(other.claimExpiredBatch({ worker: 'second', ttlMs: 60_000 })).toBeUndefined();
        else if (meets === 'a read of it') expect(other.batch(id)?.status).toBe('discarded');
        else if (meets === 'a listing of incomplete batches') expect(other.incompleteBatches()).toEqual([]);
        else {
          const results = meets === 'a resume of it' ? other.resumeBatch(id) : other.discardBatch(id);
          expect(results.map((r) => r.content)).toEqual([expect.stringMatching(/gave up on this batch/)]);
        }
        const settled = other.batch(id);
        expect(settled?.status).toBe('discarded');
        expect(settled?.calls.map((c) => c.status)).toEqual(['not_run']);
        expect(settled?.calls[0]?.result?.content).toMatch(/gave up on this batch/);
        expect(other.claimExpiredBatch({ worker: 'third', ttlMs: 60_000 })).toBeUndefined();
        expect(written()).toBe(false);
        // Its mark is kept no longer than the batches pruned with it.
        const marks = () => {
          const raw = SyncPg.connect(url, 20_000);
          try {
            return raw.query('SELECT id FROM given_up_batches').rows.length;
          } finally {
            raw.close();
          }
        };
        expect(marks()).toBe(1);
        other.prune(Date.now() + 1000);
        expect(marks()).toBe(0);
      } finally {
        other.close();
      }
    }, 60_000);

  it('one that was to ask a person first is never asked about: the list of questions does not have it', async () => {
    const { url, id, written } = await landGivenUpBatch(true);
    const other = PostgresJournal.open(url);
    try {
      expect(other.pendingApprovals()).toEqual([]);
      expect(other.batch(id)?.status).toBe('discarded');
      expect(written()).toBe(false);
    } finally {
      other.close();
    }
  }, 60_000);

  it('marked before anything else: a worker that claims the batch the moment it lands, before the process settles it, finds the mark and runs nothing (second review)', async () => {
    const root = makeTempDir('toolgate-given-up-');
    const url = server.createDatabase();
    const admin = SyncPg.connect(server.url(), 20_000);
    const holdCommits = commitHold(admin);
    const first = PostgresJournal.open(url, { timeoutMs: 1500 });
    const other = PostgresJournal.open(url);
    const raw = SyncPg.connect(url, 20_000);
    let claimed: ReturnType<typeof other.claimExpiredBatch> | 'not tried' = 'not tried';
    try {
      holdCommits(true);
      await sleep(300);
      const gate = createToolgate({
        roots: [root],
        baseDir: root,
        config: parseConfigText('[tools.approval]\nallowlist = ["write_file"]\n', 'toolgate.toml'),
        lease: { worker: 'first', ttlMs: 300 },
        // Between giving up and settling, the commit lands and another worker claims at once.
        journal: journalWith(first, {
          resumeBatch: (id, worker) => {
            holdCommits(false);
            blockUntilLandedAndExpired(raw);
            claimed = other.claimExpiredBatch({ worker: 'second', ttlMs: 60_000 });
            return first.resumeBatch(id, worker);
          },
        }),
      });
      const [result] = await gate.execute([
        { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
      ]);
      expect(claimed).toBeUndefined();
      expect(result?.content).toMatch(/not executed/);
      const [batch] = raw.query<{ status: string }>('SELECT status FROM batches').rows;
      expect(batch?.status).toBe('discarded');
      expect(existsSync(path.join(root, 'x.txt'))).toBe(false);
    } finally {
      holdCommits(false);
      admin.close();
      raw.close();
      first.close();
      other.close();
    }
  }, 60_000);

  it('only a batch whose first commit went unanswered is given up: in a takeover whose answer is not recorded in time, a call that was running stays "outcome unknown" (second review)', async () => {
    const root = makeTempDir('toolgate-given-up-');
    const url = server.createDatabase();
    const admin = SyncPg.connect(server.url(), 20_000);
    const holdCommits = commitHold(admin);
    const a = PostgresJournal.open(url);
    const b = PostgresJournal.open(url, { timeoutMs: 1500 });
    const other = PostgresJournal.open(url);
    try {
      // Worker A writes a.txt, starts `stall` and is never heard of again.
      const gateA = createToolgate({
        roots: [root],
        baseDir: root,
        tools: [stall],
        journal: journalWith(a, { renewLease: () => true }),
        approver: approveAll,
        lease: { worker: 'a', ttlMs: 200 },
      });
      let started!: () => void;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      void gateA.execute(
        [
          { id: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } },
          { id: '2', name: 'stall', arguments: {} },
          { id: '3', name: 'write_file', arguments: { path: 'c.txt', content: 'c' } },
        ],
        { onEvent: (e) => void (e.type === 'started' && e.callId === '2' && started()) },
      );
      await running;
      await sleep(400);
      const record = b.claimExpiredBatch({ worker: 'b', ttlMs: 1000 });
      expect(record?.calls.map((c) => c.status)).toEqual(['done', 'running', 'approved']);
      // B takes it over; commits are held while the person answers, so recording the answer times out.
      const gateB = createToolgate({
        roots: [root],
        baseDir: root,
        tools: [stall],
        journal: b,
        approver: async (request, signal) => {
          holdCommits(true);
          await sleep(300);
          return approveAll(request, signal);
        },
        lease: { worker: 'b', ttlMs: 60_000 },
      });
      const results = await gateB.takeOver(record as NonNullable<typeof record>);
      expect(results[1]?.content).toMatch(/outcome unknown/);
      // The answer may still land: the model hears that a worker may still run the third call.
      expect(results[2]?.content).toMatch(/not executed: .*a worker may still run this call later/s);
      holdCommits(false);
      await sleep(2000); // B's lease (1 s) runs out
      // Not given up: the next worker gets the batch, and the call A was running stays unknown.
      const claimed = other.claimExpiredBatch({ worker: 'c', ttlMs: 60_000 });
      expect(claimed?.calls[1]?.status).toBe('running');
      const gateC = createToolgate({
        roots: [root],
        baseDir: root,
        tools: [stall],
        journal: other,
        approver: approveAll,
        lease: { worker: 'c', ttlMs: 60_000 },
      });
      const finished = await gateC.takeOver(claimed as NonNullable<typeof claimed>);
      expect(finished[1]?.content).toMatch(/outcome unknown/); // it may have had its effect
      expect(other.batch(record?.id as string)?.calls.map((c) => c.status)).toEqual([
        'done',
        'unknown',
        'done',
      ]);
    } finally {
      holdCommits(false);
      admin.close();
      a.close();
      b.close();
      other.close();
    }
  }, 60_000);
  it('the mark passes over only the giving-up process’s own lease: a worker that claimed the batch first keeps it, and a reader does not settle it under that worker (third review)', () => {
    const url = server.createDatabase();
    const a = PostgresJournal.open(url);
    const w = PostgresJournal.open(url);
    const reader = PostgresJournal.open(url);
    try {
      const id = a.beginBatch(
        'S',
        [
          { id: '1', name: 'write_file', arguments: { path: 'a', content: 'a' } },
          { id: '2', name: 'write_file', arguments: { path: 'b', content: 'b' } },
        ],
        { lease: { worker: 'a', ttlMs: 100 } },
      );
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      const lease = { worker: 'w', ttlMs: 60_000 };
      expect(w.claimExpiredBatch(lease)?.id).toBe(id);
      w.markRunning(id, 0, lease); // W's side effect is under way
      a.giveUp(id, 'a'); // A's mark, landing late
      expect(reader.batch(id)?.status).toBe('open');
      expect(reader.incompleteBatches().map((b) => b.id)).toEqual([id]);
      expect(() => reader.resumeBatch(id)).toThrow(/held by worker w/);
      expect(() => w.markRunning(id, 1, lease)).not.toThrow();
    } finally {
      a.close();
      w.close();
      reader.close();
    }
  }, 60_000);

  for (const markWritten of [true, false])
    it(`a worker that claimed the landed batch before ${markWritten ? 'the mark was written' : 'the mark could be written (it failed)'}: the model hears a worker may still run the calls, and the batch stays that worker’s (third review)`, async () => {
      const root = makeTempDir('toolgate-given-up-');
      const url = server.createDatabase();
      const admin = SyncPg.connect(server.url(), 20_000);
      const raw = SyncPg.connect(url, 20_000);
      const holdCommits = commitHold(admin);
      const first = PostgresJournal.open(url, { timeoutMs: 1500 });
      const w = PostgresJournal.open(url);
      const lease = { worker: 'w', ttlMs: 60_000 };
      try {
        holdCommits(true);
        await sleep(300);
        const gate = createToolgate({
          roots: [root],
          baseDir: root,
          config: parseConfigText('[tools.approval]\nallowlist = ["write_file"]\n', 'toolgate.toml'),
          lease: { worker: 'first', ttlMs: 300 },
          journal: journalWith(first, {
            giveUp: (id, worker) => {
              // The commit lands, its lease runs out, and W claims it before the mark commits.
              holdCommits(false);
              blockUntilLandedAndExpired(raw);
              expect(w.claimExpiredBatch(lease)?.id).toBe(id);
              if (!markWritten) throw new Error('PostgreSQL did not answer (the mark, test)');
              first.giveUp(id, worker);
            },
          }),
        });
        const results = await gate.execute([
          { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
          { id: '2', name: 'write_file', arguments: { path: 'y.txt', content: 'y' } },
        ]);
        for (const r of results)
          expect(r.content).toMatch(
            /not executed: .*another worker holds the batch: a worker may still run this call later/s,
          );
        const [batch] = raw.query<{ status: string; lease_owner: string }>(
          'SELECT status, lease_owner FROM batches',
        ).rows;
        expect(batch).toEqual({ status: 'open', lease_owner: 'w' });
      } finally {
        holdCommits(false);
        admin.close();
        raw.close();
        first.close();
        w.close();
      }
    }, 60_000);
});
