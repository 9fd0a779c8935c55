import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/workspace.js';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fsync-order-worker.mjs');

interface Event {
  /** Position in the trace where the syscall completed (its `= result`). */
  at: number;
  call: string;
  file: string;
  data: string;
}

/**
 * The syscalls of every thread in completion order. strace splits a call that another thread
 * interrupts into `<unfinished ...>` and `<... resumed>` lines: the call counts where it completed.
 */
function parseTrace(text: string): Event[] {
  const pending = new Map<string, { call: string; file: string; data: string }>();
  const events: Event[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, pid, rest] = m as unknown as [string, string, string];
    const resumed = /^<\.\.\. (\w+) resumed>(.*)$/.exec(rest);
    if (resumed) {
      const p = pending.get(pid);
      pending.delete(pid);
      if (p) events.push({ at: events.length, ...p, data: p.data + (resumed[2] ?? '') });
      continue;
    }
    // link/rename/unlink take paths, not descriptors: the file is their first argument.
    const byPath = /^(link|rename|unlink)\("([^"]*)"(.*)$/.exec(rest);
    const call = byPath ?? /^(\w+)\((\d+)<([^>]*)>(.*)$/.exec(rest);
    if (!call) continue;
    if (byPath) {
      events.push({
        at: events.length,
        call: byPath[1] as string,
        file: byPath[2] as string,
        data: byPath[3] as string,
      });
      continue;
    }
    const entry = { call: call[1] as string, file: call[3] as string, data: call[4] as string };
    if (rest.endsWith('<unfinished ...>')) pending.set(pid, entry);
    else events.push({ at: events.length, ...entry });
  }
  return events;
}

function traceWorker():
  | { events: Event[]; journal: string; effect: string; phase: string; root: string }
  | string {
  const root = makeTempDir('toolgate-fsync-');
  const dir = makeTempDir('toolgate-fsync-journal-');
  const journal = path.join(dir, 'journal.db');
  const effect = path.join(dir, 'effect.txt');
  const phase = path.join(dir, 'phase.txt');
  writeFileSync(effect, '');
  const log = path.join(dir, 'trace.txt');
  const run = spawnSync(
    'strace',
    [
      '-f',
      '-y',
      '-qq',
      '-s',
      '64',
      '-e',
      'trace=write,pwrite64,fsync,fdatasync,link,rename,unlink',
      '-o',
      log,
      process.execPath,
      WORKER,
      root,
      journal,
      effect,
      phase,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (run.error) return `strace could not be started (${run.error.message})`;
  if (/ptrace|Operation not permitted/i.test(run.stderr ?? '') && run.status !== 0)
    return `strace cannot trace here (${run.stderr.trim().split('\n')[0]})`;
  expect(run.status, run.stderr).toBe(0);
  return { events: parseTrace(readFileSync(log, 'utf8')), journal, effect, phase, root };
}

describe('journal durability at the syscall level, traced by strace (docs/DURABILITY.md)', () => {
  it('no fsync for read-only calls; one fsync of the WAL before each side effect, after its `running` row; concurrent sessions share fsyncs', () => {
    const traced = traceWorker();
    if (typeof traced === 'string') {
      // A machine without strace (or without ptrace) cannot run this proof: say so; CI must run it.
      expect(process.env.CI, `CI must run the syscall-level durability test: ${traced}`).not.toBe('true');
      console.info(`fsync-order test not run: ${traced}`);
      return;
    }
    const { events, journal, effect, phase, root } = traced;
    const wal = `${journal}-wal`;
    const phaseAt = (name: string) => {
      const e = events.find((x) => x.file === phase && x.call === 'write' && x.data.includes(`"${name}\\n"`));
      expect(e, `phase ${name} in the trace`).toBeDefined();
      return e?.at ?? -1;
    };
    const [readOnly, sideEffects, concurrent, writes, end] = [
      'read-only',
      'side-effects',
      'concurrent',
      'writes',
      'end',
    ].map(phaseAt) as [number, number, number, number, number];
    const between = (from: number, to: number) => events.filter((e) => e.at > from && e.at < to);
    const isSync = (e: Event) => e.call === 'fsync' || e.call === 'fdatasync';
    const journalFiles = [journal, wal];

    // 40 read-only calls: each written (a staged line in this process's staging file) before its
    // result is handed out, never fsynced.
    const ro = between(readOnly, sideEffects);
    const staging = `${journal}.staged/`;
    expect(ro.filter((e) => e.call === 'write' && e.file.startsWith(staging)).length).toBeGreaterThanOrEqual(
      40,
    );
    expect(
      ro.filter((e) => isSync(e) && (journalFiles.includes(e.file) || e.file.startsWith(staging))),
    ).toEqual([]);

    // Each side effect: after the previous one, its `running` row is written to the WAL, then the
    // WAL is fsynced, and only then does the tool write. Exactly one fsync per side effect.
    const se = between(sideEffects, concurrent);
    const effects = se.filter((e) => e.file === effect && e.call === 'write');
    expect(effects).toHaveLength(20);
    let previous = sideEffects;
    for (const e of effects) {
      const before = between(previous, e.at);
      const syncs = before.filter((x) => isSync(x) && x.file === wal);
      expect(syncs, `one fsync of the WAL before ${e.data.slice(0, 12)}`).toHaveLength(1);
      const sync = syncs[0] as Event;
      expect(
        before.some((x) => x.call === 'pwrite64' && x.file === wal && x.at < sync.at),
        'the running row is written before the fsync',
      ).toBe(true);
      expect(before.filter((x) => isSync(x) && x.file === journal)).toEqual([]);
      previous = e.at;
    }

    // Eight sessions at once: their `running` rows share fsyncs (group commit).
    const cc = between(concurrent, writes);
    expect(cc.filter((e) => e.file === effect && e.call === 'write')).toHaveLength(8);
    const shared = cc.filter((e) => isSync(e) && e.file === wal).length;
    expect(shared).toBeGreaterThanOrEqual(1);
    expect(shared).toBeLessThanOrEqual(3);
    const effectLines = readFileSync(effect, 'utf8').trim().split('\n');
    expect(effectLines).toHaveLength(28);

    // write_file (docs/DURABILITY.md, "Writes"). A new file is linked into place, and its data and
    // directory are flushed after the reply; both are on disk before the next side effect's WAL
    // fsync, the one that makes this write's result durable. A replaced file's new bytes are on
    // disk before the rename, so a power loss never leaves it empty.
    const wr = between(writes, end);
    const dirOfWrites = path.join(root, 'w');
    const links = wr.filter((e) => e.call === 'link');
    const renames = wr.filter((e) => e.call === 'rename');
    expect(links).toHaveLength(6);
    expect(renames).toHaveLength(3);
    const flushedFile = (name: string, after: number, before: number) =>
      wr.some(
        (e) => e.call === 'fsync' && e.at > after && e.at < before && e.file.includes(`/.${name}.toolgate-`),
      );
    const flushedDir = (after: number, before: number) =>
      wr.some((e) => e.call === 'fsync' && e.at > after && e.at < before && e.file === dirOfWrites);
    // A deletion's directory is flushed too, before the process ends.
    const removal = wr.find((e) => e.call === 'unlink' && e.file.endsWith('/n5.txt'));
    expect(removal, 'delete_file unlinked n5.txt').toBeDefined();
    expect(flushedDir(removal?.at ?? end, end), 'the deletion: its directory flushed').toBe(true);
    const changes = [...links, ...renames].sort((a, b) => a.at - b.at);
    for (const [k, change] of changes.entries()) {
      const name = /\/\.(n\d\.txt)\.toolgate-/.exec(change.file)?.[1] as string;
      const nextSync = wr.find((e) => e.at > change.at && isSync(e) && e.file === wal);
      // The last one: flushed before the process ends (close() waits for it).
      const until = k === changes.length - 1 ? end : (nextSync?.at ?? -1);
      expect(until, `a WAL fsync after ${name}'s write`).toBeGreaterThan(change.at);
      expect(flushedDir(change.at, until), `${name}: its directory flushed before the next WAL fsync`).toBe(
        true,
      );
      if (change.call === 'link')
        expect(
          flushedFile(name, change.at, until),
          `${name}: its data flushed before the next WAL fsync`,
        ).toBe(true);
      else {
        const previous = changes[k - 1]?.at ?? writes;
        expect(
          flushedFile(name, previous, change.at),
          `${name}: the new bytes flushed before the rename`,
        ).toBe(true);
      }
    }
  }, 150_000);
});
