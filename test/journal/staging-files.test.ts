// Read-only batches are staged as lines in a file of each process's own, beside the journal
// (docs/DURABILITY.md, issue #14 item 4): one write() before the reply instead of a SQLite commit.
// These tests attack what that adds: files of processes that died mid-line, damaged lines, a
// folded mark lost, a folder someone else controls, and tools reaching into the folder.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createToolgate } from '../../src/index.js';
import type { FinishedCall } from '../../src/journal/journal.js';
import { thisProcess } from '../../src/journal/process-identity.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { StagingFiles } from '../../src/journal/staging-files.js';
import { killedAt } from '../helpers/killed-at.js';
import { makeTempDir } from '../helpers/workspace.js';

const call = (id: string) => ({ id, name: 'read_file', arguments: { path: `${id}.txt` } });
const finished = (id: string, content = `content of ${id}`): FinishedCall => ({
  result: { id, name: 'read_file', ok: true, content, error: null, latencyMs: 1 },
  status: 'done',
  startedAt: 1,
  finishedAt: 2,
});
/** A staged line as a process writes it (see SqliteJournal#stage). */
const line = (id: string, owner: string) =>
  `${JSON.stringify({ id, session: 's', calls: [call(id)], finished: [finished(id)], options: { messages: false }, now: 1, owner })}\n`;
const GONE = 'a-host-that-is-gone:1:0';
/** A staging file as another process would have left it. */
const fileOf = (journal: string, owner: string, text: string) => {
  const dir = StagingFiles.dirFor(journal);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = path.join(dir, `${encodeURIComponent(owner)}+0123456789ab.jsonl`);
  writeFileSync(name, text, { mode: 0o600 });
  return name;
};
const sqliteRows = (file: string, table: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('staging files for read-only batches (issue #14 item 4)', () => {
  it('a finished read-only batch is one line in a private file of this process (0600 in a 0700 folder), not a SQLite commit; another connection folds it before reading', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    const other = SqliteJournal.open(file);
    const id = j.recordFinishedBatch('s', [call('a')], [finished('a')], { messages: false });
    const dir = StagingFiles.dirFor(file);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    const names = readdirSync(dir);
    expect(names).toHaveLength(1);
    expect(lstatSync(path.join(dir, names[0] as string)).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(dir, names[0] as string), 'utf8')).toContain('content of a');
    expect(sqliteRows(file, 'staged_batches')).toBe(0);
    expect(sqliteRows(file, 'batches')).toBe(0);
    expect(other.batch(id)?.calls.map((c) => c.result?.content)).toEqual(['content of a']);
    other.close();
    j.close();
    expect(readdirSync(dir)).toEqual([]); // all folded: the closing process removed its file
  });

  it('a process that looks gone from here (another host or PID namespace: a container sharing the folder) may still be writing: its whole lines are folded, its half line waits, its file is kept (review H2)', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const whole = line('c', GONE);
    const left = fileOf(file, GONE, `${line('a', GONE)}${line('b', GONE)}${whole.slice(0, 40)}`);
    const j = SqliteJournal.open(file);
    expect(
      j
        .recentBatches(10)
        .map((b) => b.id)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(j.unreadableStaged()).toEqual([]);
    expect(existsSync(left)).toBe(true);
    appendFileSync(left, whole.slice(40)); // it was alive after all
    expect(
      j
        .recentBatches(10)
        .map((b) => b.id)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
    j.close();
  });

  it('a staging folder open to others is not used (a file planted while it was open would be folded as ours: review L2)', () => {
    const file = path.join(makeTempDir(), 'j.db');
    mkdirSync(StagingFiles.dirFor(file), { mode: 0o777 });
    chmodSync(StagingFiles.dirFor(file), 0o777);
    const j = SqliteJournal.open(file);
    j.recordFinishedBatch('s', [call('a')], [finished('a')], { messages: false });
    expect(sqliteRows(file, 'staged_batches')).toBe(1);
    expect(readdirSync(StagingFiles.dirFor(file))).toEqual([]);
    j.close();
  });

  it("a live process's line still being written waits, and is folded once it is whole", () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const me = thisProcess(); // alive: its half line may be a write in progress
    const whole = line('b', me);
    const half = fileOf(file, me, `${line('a', me)}${whole.slice(0, 30)}`);
    const j = SqliteJournal.open(file);
    expect(j.recentBatches(10).map((b) => b.id)).toEqual(['a']);
    expect(j.unreadableStaged()).toEqual([]);
    appendFileSync(half, whole.slice(30));
    expect(
      j
        .recentBatches(10)
        .map((b) => b.id)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(existsSync(half)).toBe(true); // its owner is alive: only it removes its file
    j.close();
  });

  it('a damaged whole line is kept and named; the lines around it fold; repair removes it', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    fileOf(file, GONE, `${line('a', GONE)}{not json\n${line('b', GONE)}`);
    const j = SqliteJournal.open(file);
    expect(
      j
        .recentBatches(10)
        .map((b) => b.id)
        .sort(),
    ).toEqual(['a', 'b']);
    const [bad] = j.unreadableStaged();
    expect(bad?.problem).toMatch(/JSON/);
    expect(() => j.countCallsSince('read_file', 0)).toThrow(/cannot read.*toolgate journal repair/);
    expect(j.dropUnreadableStaged()).toEqual([{ seq: bad?.seq, body: '{not json' }]);
    expect(j.countCallsSince('read_file', 0)).toBe(2);
    j.close();
  });

  it('every line is folded once: a folded mark lost (a crash between the commit and removing the file) folds nothing twice', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    j.recordFinishedBatch('s', [call('a')], [finished('a')]);
    j.recordFinishedBatch('s', [call('b')], [finished('b')]);
    expect(j.messages('s')).toHaveLength(4); // folded
    const db = new Database(file);
    db.prepare('UPDATE staged_files SET folded = 0').run();
    db.close();
    const other = SqliteJournal.open(file);
    expect(other.recentBatches(10)).toHaveLength(2);
    expect(other.messages('s').map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    expect(other.unreadableStaged()).toEqual([]);
    other.close();
    j.close();
  });

  it('read records ride in the staged line: a process killed before any fold leaves the next one knowing what was read', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const module = path.resolve('src/journal/sqlite-journal.ts');
    const script = `
      import { SqliteJournal } from ${JSON.stringify(module)};
      const j = SqliteJournal.open(${JSON.stringify(file)});
      j.putReadRecord('s', '/w/a.txt', { sha256: 'aaa', readAt: 5 });
      j.recordFinishedBatch('s', [{ id: 'k', name: 'read_file', arguments: {} }],
        [{ result: { id: 'k', name: 'read_file', ok: true, content: 'x', error: null, latencyMs: 0 }, status: 'done', finishedAt: 1 }]);
      process.stdout.write('staged\\n');
      setInterval(() => {}, 1000);
    `;
    await killedAt(script, 'staged');
    expect(sqliteRows(file, 'read_cache')).toBe(0); // only in the line
    const j = SqliteJournal.open(file);
    expect(j.getReadRecord('s', '/w/a.txt')).toEqual({ sha256: 'aaa', readAt: 5 });
    j.close();
  });

  it("another process's read record, still in its staged line, is seen (not taken for never read)", () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    const other = SqliteJournal.open(file);
    j.putReadRecord('s', '/w/a.txt', { sha256: 'aaa', readAt: 5 });
    j.recordFinishedBatch('s', [call('a')], [finished('a')]);
    expect(j.getReadRecord('s', '/w/a.txt')).toEqual({ sha256: 'aaa', readAt: 5 }); // from memory
    expect(sqliteRows(file, 'read_cache')).toBe(0);
    expect(other.getReadRecord('s', '/w/a.txt')).toEqual({ sha256: 'aaa', readAt: 5 }); // folded first
    other.close();
    j.close();
  });

  it('a staging folder that is a link (to somewhere else) is not used: batches are staged in SQLite, nothing is written there', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'j.db');
    const elsewhere = makeTempDir();
    symlinkSync(elsewhere, StagingFiles.dirFor(file));
    const j = SqliteJournal.open(file);
    const id = j.recordFinishedBatch('s', [call('a')], [finished('a')], { messages: false });
    expect(sqliteRows(file, 'staged_batches')).toBe(1);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(j.batch(id)?.status).toBe('complete');
    j.close();
  });

  it('a big own file, all folded, is replaced by a new one (a file per process does not grow for ever)', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    const dir = StagingFiles.dirFor(file);
    const big = 'x'.repeat(40_000);
    for (let i = 0; i < 30; i++) j.recordFinishedBatch('s', [call(`a${i}`)], [finished(`a${i}`, big)]);
    const first = readdirSync(dir);
    expect(first).toHaveLength(1);
    expect(j.recentBatches(100)).toHaveLength(30); // folds: the file (over 1 MB) goes
    expect(readdirSync(dir)).toEqual([]);
    j.recordFinishedBatch('s', [call('b')], [finished('b')]);
    const second = readdirSync(dir);
    expect(second).toHaveLength(1);
    expect(second[0]).not.toBe(first[0]);
    expect(j.recentBatches(100)).toHaveLength(31);
    j.close();
  });

  it('no tool reaches into the staging folder of a journal kept inside a root (FR-VAL-04, own state)', async () => {
    const root = makeTempDir();
    const journal = SqliteJournal.open(path.join(root, 'state', 'j.db'));
    const gate = createToolgate({ roots: [root], journal, conversation: false });
    await gate.execute([{ id: 'r', name: 'read_file', arguments: { path: 'state/j.db' } }]);
    const dir = readdirSync(StagingFiles.dirFor(path.join(root, 'state', 'j.db')));
    expect(dir.length).toBeGreaterThan(0);
    const inside = `state/j.db.staged/${dir[0]}`;
    const results = await gate.execute([
      { id: '1', name: 'read_file', arguments: { path: inside } },
      {
        id: '2',
        name: 'write_file',
        arguments: { path: 'state/j.db.staged/planted.jsonl', content: '{}\n' },
      },
      { id: '3', name: 'list_directory', arguments: { path: 'state/j.db.staged' } },
      { id: '4', name: 'grep', arguments: { pattern: 'read_file', path: 'state' } },
    ]);
    expect(results.slice(0, 3).map((r) => [r.ok, r.error?.type])).toEqual([
      [false, 'SandboxViolation'],
      [false, 'SandboxViolation'],
      [false, 'SandboxViolation'],
    ]);
    expect(results[0]?.content).toMatch(/toolgate's own configuration or state/);
    expect(results[3]?.content ?? '').not.toContain('j.db.staged');
    expect(
      existsSync(path.join(StagingFiles.dirFor(path.join(root, 'state', 'j.db')), 'planted.jsonl')),
    ).toBe(false);
    await gate.close();
    journal.close();
  });

  it('review H1: closing one of two journals on a file leaves the other one’s locks: another process cannot take the WAL away from it', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const a = SqliteJournal.open(file);
    const b = SqliteJournal.open(file);
    a.governanceMode(); // planning's look: reads the WAL-index header
    b.governanceMode();
    a.close();
    a.close(); // twice: still gives back only its own use of the descriptor
    // Another process opens and closes the database: were it the last user, it would remove the WAL.
    const other = spawnSync(
      process.execPath,
      [
        '-e',
        `const D = require('better-sqlite3'); const d = new D(${JSON.stringify(file)}); d.prepare('SELECT 1').get(); d.close();`,
      ],
      { cwd: path.resolve('.'), encoding: 'utf8' },
    );
    expect(other.status, other.stderr).toBe(0);
    expect(existsSync(`${file}-wal`)).toBe(true);
    b.recordMode('LOCKDOWN', 'after', 'ops');
    const fresh = new Database(file, { readonly: true });
    expect(fresh.prepare('SELECT mode FROM governance_modes ORDER BY seq DESC LIMIT 1').pluck().get()).toBe(
      'LOCKDOWN',
    );
    fresh.close();
    b.close();
  });

  it('review H1: a journal closed gives back its -shm descriptor once no other journal of this process uses it (no descriptor leaks)', () => {
    const openFds = () => readdirSync('/proc/self/fd').length;
    const dir = makeTempDir();
    const warm = SqliteJournal.open(path.join(dir, 'warm.db')); // module-level handles opened once
    warm.governanceMode();
    warm.close();
    const before = openFds();
    for (let i = 0; i < 40; i += 1) {
      const file = path.join(dir, `j${i % 4}.db`);
      const a = SqliteJournal.open(file);
      const b = SqliteJournal.open(file);
      a.governanceMode();
      a.close();
      a.close(); // twice: gives back once
      b.governanceMode();
      b.close();
    }
    expect(openFds()).toBe(before);
  });

  it('review L3: sync() folds what this process staged first, so its fsync covers it', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    const id = j.recordFinishedBatch('s', [call('a')], [finished('a')], { messages: false });
    expect(sqliteRows(file, 'batches')).toBe(0);
    await j.sync();
    expect(sqliteRows(file, 'batches')).toBe(1);
    expect(j.batch(id)?.status).toBe('complete');
    j.close();
  });

  it('review M1: a folder that cannot be listed forgets no mark, so a pruned batch never comes back', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    fileOf(file, GONE, line('old', GONE));
    const j = SqliteJournal.open(file); // folds it
    expect(j.recentBatches(10).map((b) => b.id)).toEqual(['old']);
    expect(j.prune(Date.now() + 60_000).batches).toBe(1);
    const dir = StagingFiles.dirFor(file);
    renameSync(dir, `${dir}.away`); // listing fails now
    j.recordFinishedBatch('s', [call('new')], [finished('new')], { messages: false }); // (staged in SQLite)
    expect(j.recentBatches(10).map((b) => b.id)).toHaveLength(1); // a fold ran, with no folder to list
    renameSync(`${dir}.away`, dir);
    expect(j.recentBatches(10).map((b) => b.id)).not.toContain('old'); // not folded again from the start
    j.close();
  });

  it('review M3: a line longer than a fold’s window is folded whole by another process', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const big = JSON.stringify({
      id: 'big',
      session: 's',
      calls: [call('big')],
      finished: [finished('big', 'y'.repeat(9 << 20))],
      options: { messages: false },
      now: 1,
      owner: GONE,
    });
    fileOf(file, GONE, `${line('a', GONE)}${big}\n${line('b', GONE)}`);
    const j = SqliteJournal.open(file);
    expect(
      j
        .recentBatches(10)
        .map((b) => b.id)
        .sort(),
    ).toEqual(['a', 'b', 'big']);
    expect(j.batch('big')?.calls[0]?.result?.content).toHaveLength(9 << 20);
    j.close();
  });

  it('review L5: what is folded is the line as written, whatever the caller does with its objects afterwards', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    const done = finished('a');
    const id = j.recordFinishedBatch('s', [call('a')], [done], { messages: false });
    (done.result as { content: string }).content = 'changed afterwards';
    expect(j.batch(id)?.calls[0]?.result?.content).toBe('content of a');
    j.close();
  });

  it('review L4: a half line that does not grow is looked at once, not by every read', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const half = fileOf(file, GONE, `${line('a', GONE)}${line('b', GONE).slice(0, 20)}`);
    const j = SqliteJournal.open(file);
    expect(j.recentBatches(10).map((b) => b.id)).toEqual(['a']);
    const db = new Database(file, { readonly: true });
    const mark = db.prepare('SELECT folded, seen FROM staged_files').get() as {
      folded: number;
      seen: number;
    };
    db.close();
    expect(mark.seen).toBe(readFileSync(half).length);
    expect(mark.folded).toBe(line('a', GONE).length);
    j.close();
  });

  it('review M4: one staging folder per journal file, whatever path names it (a symlink)', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'j.db');
    SqliteJournal.open(file).close();
    symlinkSync(file, path.join(dir, 'link.db'));
    const viaLink = SqliteJournal.open(path.join(dir, 'link.db'));
    const id = viaLink.recordFinishedBatch('s', [call('a')], [finished('a')], { messages: false });
    expect(existsSync(StagingFiles.dirFor(file))).toBe(true);
    expect(existsSync(`${path.join(dir, 'link.db')}.staged`)).toBe(false);
    const direct = SqliteJournal.open(file);
    expect(direct.batch(id)?.status).toBe('complete');
    direct.close();
    viaLink.close();
  });

  it('review M4: a process acting as another user folds the owner’s staged lines (their folder is read, never written)', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'j.db');
    SqliteJournal.open(file).close();
    const user = 'someone:1:0';
    const left = fileOf(file, user, line('theirs', user));
    // The folder and the journal belong to this test's user; the journal below acts as another one
    // (root reading a user's journal), which needs no root to set up.
    const other = SqliteJournal.open(file, { uid: (process.getuid?.() ?? 0) + 1 });
    expect(other.recentBatches(10).map((b) => b.id)).toEqual(['theirs']);
    other.recordFinishedBatch('s', [call('mine')], [finished('mine')], { messages: false });
    expect(readdirSync(StagingFiles.dirFor(file))).toEqual([path.basename(left)]); // nothing of its own
    expect(sqliteRows(file, 'staged_batches')).toBe(1); // staged in SQLite instead
    other.close();
  });

  it('review M2: across processes, batches fold in the order they were staged, and the newest read record wins', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const a = SqliteJournal.open(file);
    const b = SqliteJournal.open(file);
    a.putReadRecord('s', '/w/x.txt', { sha256: 'OLD', readAt: Date.now() });
    a.recordFinishedBatch('s', [call('first')], [finished('first')]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    b.putReadRecord('s', '/w/x.txt', { sha256: 'NEW', readAt: Date.now() });
    b.recordFinishedBatch('s', [call('second')], [finished('second')]);
    // The newer process folds: its own lines are not first just because they are its own.
    expect(b.getReadRecord('s', '/w/x.txt')?.sha256).toBe('NEW');
    const tools = b
      .messages('s')
      .filter((m) => m.role === 'tool')
      .map((m) => (m.content as { content: string }).content);
    expect(tools).toEqual(['content of first', 'content of second']);
    b.close();
    a.close();
    const c = SqliteJournal.open(file);
    expect(c.getReadRecord('s', '/w/x.txt')?.sha256).toBe('NEW');
    c.close();
  });

  it('review M2: a read record staged earlier never overwrites a newer one another process committed meanwhile', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const a = SqliteJournal.open(file);
    const b = SqliteJournal.open(file);
    a.putReadRecord('s', '/w/x.txt', { sha256: 'OLD', readAt: Date.now() });
    a.recordFinishedBatch('s', [call('first')], [finished('first')], { messages: false }); // staged
    await new Promise((resolve) => setTimeout(resolve, 5));
    b.putReadRecord('s', '/w/x.txt', { sha256: 'NEW', readAt: Date.now() });
    b.beginBatch('s', [{ id: 'w', name: 'write_file', arguments: {} }], { messages: false }); // committed
    const c = SqliteJournal.open(file); // folds a's line now, after b's commit
    expect(c.getReadRecord('s', '/w/x.txt')?.sha256).toBe('NEW');
    c.close();
    b.close();
    a.close();
  });
});
