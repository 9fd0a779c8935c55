import { spawnSync } from 'node:child_process';
import { fstatSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import type { PlannedCall } from '../../src/core/planned-call.js';
import type { ToolResult } from '../../src/core/tool-result.js';
import type { Journal } from '../../src/journal/journal.js';
import { journalObserver } from '../../src/journal/journal-observer.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { PendingSyncs, pendingFileSyncs } from '../../src/sandbox/pending-syncs.js';
import { createToolgate } from '../../src/toolgate.js';
import { testTool } from '../helpers/tools.js';
import { makeTempDir } from '../helpers/workspace.js';

// docs/DURABILITY.md, "Writes": a new file's data and directory are flushed after the reply, and
// everything that depends on them waits. The syscall order against the real disk is proven by
// test/crash/fsync-order.test.ts; these pin the waiting itself, which a fast disk hides there.

const bad = 2 ** 30; // a descriptor number no process here has open

describe('PendingSyncs', () => {
  it('flushes and closes what it is given; settle() resolves once it is done', async () => {
    const dir = makeTempDir('toolgate-ps-');
    const fd = openSync(dir, 'r');
    const syncs = new PendingSyncs();
    syncs.start([fd], 'dir');
    expect(syncs.idle).toBe(false);
    await syncs.settle();
    expect(syncs.idle).toBe(true);
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });

  it('review finding: a failed flush is told to the owner that wrote the file, never to another', async () => {
    const syncs = new PendingSyncs();
    const alice = {};
    const bob = {};
    syncs.start([bad], 'hr/alice.txt', alice);
    await expect(syncs.settle(bob)).resolves.toBeUndefined(); // not Bob's to hear, nor to see the path
    await expect(syncs.settle(alice)).rejects.toThrow(/"hr\/alice\.txt"/);
    expect(syncs.idle).toBe(true);
  });

  it('past 64 descriptors held, a file is flushed at once instead of later (never more held)', async () => {
    const dir = makeTempDir('toolgate-ps-');
    const syncs = new PendingSyncs();
    const fds = Array.from({ length: 100 }, () => openSync(dir, 'r'));
    for (const fd of fds) syncs.start([fd], 'dir');
    // The ones past the bound were flushed and closed before start() returned.
    const closedNow = fds.filter((fd) => {
      try {
        fstatSync(fd);
        return false;
      } catch {
        return true;
      }
    });
    expect(closedNow.length).toBeGreaterThanOrEqual(36);
    await syncs.settle();
    for (const fd of fds) expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });

  it('a failed flush is reported once, by settle(), naming the file; drained() never throws', async () => {
    const syncs = new PendingSyncs();
    syncs.start([bad], 'w/a.txt');
    await syncs.drained();
    expect(syncs.idle).toBe(false); // the failure waits for settle()
    await expect(syncs.settle()).rejects.toThrow(/"w\/a\.txt".*may not survive a power loss/);
    await expect(syncs.settle()).resolves.toBeUndefined();
    expect(syncs.idle).toBe(true);
  });
});

describe('the pipeline waits for pending flushes (DURABILITY.md "Writes")', () => {
  function gateWith(root: string, journal?: Journal) {
    const order: string[] = [];
    const effect = testTool(
      'effect',
      async () => {
        order.push('effect ran');
        return 'ok';
      },
      { tier: 'side_effecting' },
    );
    const peek = testTool('peek', async () => {
      order.push('peek ran');
      return 'ok';
    });
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { mode: 'auto' } } }),
      roots: [root],
      ...(journal ? { journal } : {}),
      session: 's',
      builtins: false,
      tools: [effect, peek],
    });
    return { gate, order };
  }

  /**
   * Makes the process's pending flushes end only when the test says so (a disk slow right now):
   * everything that waits for them waits for `release()`. `restore()` undoes it.
   */
  function slowFlush(order: string[]) {
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const syncs = pendingFileSyncs;
    const realDrained = syncs.drained.bind(syncs);
    let waiting = true;
    Object.defineProperty(syncs, 'idle', { get: () => !waiting, configurable: true });
    syncs.drained = async () => {
      await slow;
      if (waiting) order.push('flushed');
      waiting = false;
      await realDrained();
    };
    const restore = () => {
      delete (syncs as unknown as Record<string, unknown>).idle;
      delete (syncs as unknown as Record<string, unknown>).drained;
    };
    return { release, restore };
  }

  it('a side-effecting call starts only after the flushes before it ended; a read-only one does not wait', async () => {
    const root = makeTempDir('toolgate-ps-');
    const journal = SqliteJournal.open(path.join(root, '.toolgate', 'journal.db'));
    const { gate, order } = gateWith(root, journal);
    const flush = slowFlush(order);
    try {
      const reading = gate.execute([{ id: 'r', name: 'peek', arguments: {} }]);
      expect((await reading)[0]?.ok).toBe(true);
      expect(order).toEqual(['peek ran']);
      const writing = gate.execute([{ id: 'w', name: 'effect', arguments: {} }]);
      await new Promise((r) => setTimeout(r, 50));
      expect(order).toEqual(['peek ran']); // still waiting for the flush
      flush.release();
      const [result] = await writing;
      expect(result?.ok).toBe(true);
      expect(order).toEqual(['peek ran', 'flushed', 'effect ran']);
    } finally {
      flush.restore();
      journal.close();
    }
  });

  it('review finding: the journal never fsyncs while a file is being flushed, whichever session asks (another session, a question)', async () => {
    const root = makeTempDir('toolgate-ps-');
    const journal = SqliteJournal.open(path.join(root, '.toolgate', 'journal.db'));
    const order: string[] = [];
    const flush = slowFlush(order);
    try {
      // The journal's own fsync (a side effect's, or before a person is asked) waits for the flush.
      const synced = journal.sync().then(() => order.push('journal fsynced'));
      // So does another session's side effect on the same journal (MCP over HTTP runs several).
      const b = gateWith(root, journal);
      const other = b.gate.execute([{ id: 'x', name: 'effect', arguments: {} }]);
      await new Promise((r) => setTimeout(r, 50));
      expect(order).toEqual([]);
      expect(b.order).toEqual([]); // the other session's side effect has not started either
      flush.release();
      await synced;
      expect((await other)[0]?.ok).toBe(true);
      expect(order).toEqual(['flushed', 'journal fsynced']);
      expect(b.order).toEqual(['effect ran']);
    } finally {
      flush.restore();
      journal.close();
    }
  });

  it('review finding (HIGH): a patch adding many new files never holds more descriptors than the process may open', () => {
    const root = makeTempDir('toolgate-ps-');
    const module = path.resolve('src/toolgate.ts');
    const config = path.resolve('src/config/load-config.ts');
    const script = `
      import { createToolgate } from ${JSON.stringify(module)};
      import { validateConfig } from ${JSON.stringify(config)};
      import { readdirSync } from 'node:fs';
      const gate = createToolgate({ config: validateConfig({ tools: { approval: { mode: 'auto' } } }), roots: [${JSON.stringify(root)}], session: 's' });
      let patch = '*** Begin Patch\\n';
      for (let i = 0; i < 400; i++) patch += '*** Add File: d/f' + i + '.txt\\n+line ' + i + '\\n';
      patch += '*** End Patch\\n';
      const [r] = await gate.execute([{ id: 'p', name: 'apply_patch', arguments: { patch } }]);
      await gate.close();
      console.log(JSON.stringify({ ok: r.ok, error: r.error?.message, files: readdirSync(${JSON.stringify(root)} + '/d').length }));
    `;
    // 400 new files, two descriptors each while flushed, against a limit of 256 open descriptors.
    const run = spawnSync(
      'bash',
      ['-c', 'ulimit -n 256 && exec "$0" --import tsx --input-type=module -e "$1"', process.execPath, script],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1) as string)).toEqual({ ok: true, files: 400 });
  }, 150_000);

  it('after a failed flush the next side-effecting call is not run and says why; the one after runs', async () => {
    const root = makeTempDir('toolgate-ps-');
    const { gate, order } = gateWith(root);
    gate.sandbox.pendingSyncs.start([bad], 'w/lost.txt', gate.sandbox);
    // Another session of the process is not told (and its calls run).
    const other = gateWith(root);
    expect((await other.gate.execute([{ id: 'o', name: 'effect', arguments: {} }]))[0]?.ok).toBe(true);
    const [first] = await gate.execute([{ id: 'a', name: 'effect', arguments: {} }]);
    expect(first?.ok).toBe(false);
    expect(first?.error?.type).toBe('ExecutionFailed');
    expect(first?.error?.message).toMatch(
      /^not executed: a file written before could not be flushed.*"w\/lost\.txt"/,
    );
    expect(order).toEqual([]);
    const [second] = await gate.execute([{ id: 'b', name: 'effect', arguments: {} }]);
    expect(second?.ok).toBe(true);
    expect(order).toEqual(['effect ran']);
  });

  it('write_file: the new file is in place when the result is returned, and flushed by close()', async () => {
    const root = makeTempDir('toolgate-ps-');
    const gate = createToolgate({
      config: validateConfig({ tools: { approval: { mode: 'auto' } } }),
      roots: [root],
      session: 's',
    });
    const [r] = await gate.execute([
      { id: 'w', name: 'write_file', arguments: { path: 'a/b.txt', content: 'hello\n' } },
    ]);
    expect(r?.ok).toBe(true);
    expect(readFileSync(path.join(root, 'a', 'b.txt'), 'utf8')).toBe('hello\n');
    expect(gate.sandbox.pendingSyncs.idle).toBe(false); // flushing after the reply
    await gate.close();
    expect(gate.sandbox.pendingSyncs.idle).toBe(true);
  });

  it('a journal whose commits are durable at once records a result only after the flushes (PostgreSQL)', async () => {
    const recorded: string[] = [];
    const journal = {
      durableCommits: true,
      recordResult: (_b: string, index: number) => recorded.push(`result ${index}`),
    } as unknown as Journal;
    const syncs = new PendingSyncs();
    const dir = makeTempDir('toolgate-ps-');
    syncs.start([openSync(dir, 'r')], 'dir');
    const observer = journalObserver(journal, 'b1', undefined, undefined, undefined, syncs);
    const planned = { index: 0, disposition: { kind: 'execute' } } as unknown as PlannedCall;
    const result = { id: 'c', name: 'effect', ok: true } as ToolResult;
    const pending = observer.onCallResult?.(result, planned);
    expect(recorded).toEqual([]); // not before the flush
    await pending;
    expect(recorded).toEqual(['result 0']);
    expect(syncs.idle).toBe(true);
  });
});
