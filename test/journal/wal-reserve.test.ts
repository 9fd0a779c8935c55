// Issue #14 item 4, the write row: before the fsync that precedes a side effect, the journal keeps
// room written ahead in the WAL (zeros past the log's end, under SQLite's write lock), so commits
// overwrite it in place and the fdatasync need not commit a new file size. These tests check the
// WAL-index arithmetic against the real file, and that SQLite's own recovery reads such a WAL
// whole after a SIGKILL, with another process writing at the same time.
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { WalIndexHeader } from '../../src/journal/wal-index-header.js';
import { WalSync } from '../../src/journal/wal-sync.js';
import { makeTempDir } from '../helpers/workspace.js';

const write = (id: string) => [{ id, name: 'write_file', arguments: { path: `${id}.txt` } }];
const done = (id: string) => ({
  id,
  name: 'write_file',
  ok: true,
  content: `wrote ${id}`,
  error: null,
  latencyMs: 0,
});

/** One side-effecting batch as the pipeline journals it: begun running, fsynced, its result. */
async function sideEffect(j: SqliteJournal, id: string): Promise<void> {
  const batch = j.beginBatch('s', write(id), { batchId: id, messages: false, running: 0 });
  await j.sync();
  j.recordResult(batch, 0, done(id), 'done', {});
}

describe('issue #14 item 4: WAL room written ahead of side effects', () => {
  it('the WAL-index header gives the bytes the log uses: the file size exactly, while nothing was written ahead', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    const header = new WalIndexHeader(file);
    for (let i = 0; i < 20; i++) {
      j.beginBatch('s', write(`b${i}`), { batchId: `b${i}`, messages: false });
      expect(header.bytesUsed()).toBe(statSync(`${file}-wal`).size);
    }
    header.release();
    j.close();
  });

  it('from a process’s second side effect on, the WAL holds at least 1 MB past the log before the fsync, and the log then grows inside it', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    const header = new WalIndexHeader(file);
    await sideEffect(j, 'w0');
    // One fsync (`toolgate exec` of one write) writes nothing ahead: it would only pay for it.
    expect(statSync(`${file}-wal`).size).toBe(header.bytesUsed());
    await sideEffect(j, 'w1');
    const size = statSync(`${file}-wal`).size;
    const used = header.bytesUsed() as number;
    expect(size).toBeGreaterThanOrEqual(used + (1 << 20));
    for (let i = 2; i < 30; i++) await sideEffect(j, `w${i}`);
    expect(statSync(`${file}-wal`).size).toBe(size); // written in place: the file did not grow
    expect(header.bytesUsed()).toBeGreaterThan(used);
    header.release();
    j.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.prepare("SELECT count(*) FROM batches WHERE status = 'complete'").pluck().get()).toBe(30);
    db.close();
  });

  it('a write-ahead that fails (a full disk) is not tried again by that journal: its fsyncs pay for no write lock', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    const extend = vi.spyOn(WalSync.prototype, 'extendTo').mockImplementation(() => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    });
    try {
      for (let i = 0; i < 6; i++) await sideEffect(j, `w${i}`);
      expect(extend).toHaveBeenCalledTimes(1);
    } finally {
      extend.mockRestore();
    }
    expect(j.batch('w5')?.status).toBe('complete');
    j.close();
  });

  it('another process holding the write lock is not waited for: the room is made at a later fsync', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file, { busyTimeoutMs: 5000 });
    await sideEffect(j, 'w0'); // the first fsync writes nothing ahead
    const id = j.beginBatch('s', write('w1'), { batchId: 'w1', messages: false, running: 0 });
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    await j.sync();
    expect(performance.now() - started).toBeLessThan(2000); // not the 5 s busy timeout
    expect(statSync(`${file}-wal`).size).toBeLessThan(1 << 20); // nothing written ahead yet
    other.exec('COMMIT');
    other.close();
    j.recordResult(id, 0, done('w1'), 'done', {});
    await sideEffect(j, 'w2');
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(1 << 20);
    j.close();
  });

  it('two processes writing side effects on one journal, both killed with SIGKILL: SQLite’s recovery reads every commit, the zeros are the log’s end', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const module = path.resolve('src/journal/sqlite-journal.ts');
    const script = (who: string) => `
      import { SqliteJournal } from ${JSON.stringify(module)};
      const j = SqliteJournal.open(${JSON.stringify(file)});
      for (let i = 0; ; i++) {
        const id = '${who}' + i;
        j.beginBatch('s', [{ id, name: 'write_file', arguments: {} }], { batchId: id, messages: false, running: 0 });
        await j.sync();
        j.recordResult(id, 0, { id, name: 'write_file', ok: true, content: 'x'.repeat(3000), error: null, latencyMs: 0 }, 'done', {});
        process.stdout.write(id + '\\n');
      }
    `;
    const children = ['a', 'b'].map((who) =>
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(who)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    const reported = children.map(() => [] as string[]);
    await new Promise<void>((resolve) => {
      children.forEach((child, k) => {
        let buffer = '';
        child.stdout.on('data', (d: Buffer) => {
          buffer += d.toString();
          const lines = buffer.split('\n');
          buffer = lines.pop() ?? '';
          reported[k]?.push(...lines);
          if (reported.every((r) => r.length >= 150)) resolve();
        });
      });
    });
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children.map((c) => new Promise((resolve) => c.once('exit', resolve))));
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(1 << 20); // written ahead
    // A fresh process recovers the WAL from the file (no live connection kept its index).
    const db = new Database(file, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const complete = new Set(
      db.prepare("SELECT id FROM batches WHERE status = 'complete'").pluck().all() as string[],
    );
    db.close();
    for (const id of reported.flat()) expect(complete.has(id), id).toBe(true);
  }, 60_000);
});
