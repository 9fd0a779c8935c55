// The second hostile review of staging files (session 13): each test is one finding, seen failing
// before its fix. See docs/DURABILITY.md, "Staged read-only batches".
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import type { FinishedCall } from '../../src/journal/journal.js';
import { thisProcess } from '../../src/journal/process-identity.js';
import { SCHEMA_VERSION } from '../../src/journal/schema.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { StagingFiles } from '../../src/journal/staging-files.js';
import { makeTempDir } from '../helpers/workspace.js';

const call = (id: string) => ({ id, name: 'read_file', arguments: { path: `${id}.txt` } });
const finished = (id: string): FinishedCall => ({
  result: { id, name: 'read_file', ok: true, content: `content of ${id}`, error: null, latencyMs: 1 },
  status: 'done',
  startedAt: 1,
  finishedAt: 2,
});
const line = (id: string, owner: string) =>
  `${JSON.stringify({ id, session: 's', calls: [call(id)], finished: [finished(id)], options: { messages: false }, now: 1, owner })}\n`;
/** A staging file as another process leaves it; `suffix` is what follows the owner in its name. */
const plant = (journal: string, owner: string, text: string, suffix = '+0123456789ab', mode = 0o600) => {
  const dir = StagingFiles.dirFor(journal);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = path.join(dir, `${encodeURIComponent(owner)}${suffix}.jsonl`);
  writeFileSync(name, text, { mode });
  chmodSync(name, mode);
  return name;
};
const rows = (file: string, table: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A process of this host that is not running (pid above any pid_max), as a file name records it. */
const DEAD = `${os.hostname()}:99999999:1`;
const ourNamespace = () => /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] as string;

describe('staging files, second review (issue #14 item 4)', () => {
  it('review 13, 1: lines in a folder someone opened to others are still folded; a file writable by others is not (it may be planted)', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    plant(file, DEAD, line('answered', DEAD));
    plant(file, DEAD, line('planted', DEAD), '+ffffffffffff', 0o666);
    chmodSync(StagingFiles.dirFor(file), 0o777);
    const j = SqliteJournal.open(file);
    expect(j.batch('answered')?.status).toBe('complete');
    expect(j.batch('planted')).toBeUndefined();
    j.recordFinishedBatch('s', [call('mine')], [finished('mine')], { messages: false });
    expect(rows(file, 'staged_batches')).toBe(1); // not written into a folder others may write in
    j.close();
  });

  it('review 13, 1: a folder only readable by others (chmod g+rX) is still used for writing (the files stay 0600)', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    plant(file, DEAD, line('answered', DEAD));
    chmodSync(StagingFiles.dirFor(file), 0o755);
    const j = SqliteJournal.open(file);
    expect(j.batch('answered')?.status).toBe('complete');
    j.recordFinishedBatch('s', [call('mine')], [finished('mine')], { messages: false });
    expect(rows(file, 'staged_batches')).toBe(0);
    j.close();
  });

  it('review 13, 2: a process acting as another user than the journal’s owner never makes the staging folder (stages in SQLite)', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    rmSync(StagingFiles.dirFor(file), { recursive: true, force: true }); // a journal from before staging files
    const other = SqliteJournal.open(file, { uid: (process.getuid?.() ?? 0) + 1 });
    const id = other.recordFinishedBatch('s', [call('theirs')], [finished('theirs')], { messages: false });
    expect(existsSync(StagingFiles.dirFor(file))).toBe(false);
    expect(rows(file, 'staged_batches')).toBe(1);
    other.close();
    const owner = SqliteJournal.open(file);
    expect(owner.batch(id)?.status).toBe('complete');
    owner.close();
  });

  it('review 13, 3: a read staged earlier and folded late never brings back a file another process forgot since', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const a = SqliteJournal.open(file);
    const b = SqliteJournal.open(file);
    a.putReadRecord('s', '/w/x.txt', { sha256: 'OLD', readAt: Date.now() });
    a.recordFinishedBatch('s', [call('read')], [finished('read')], { messages: false }); // staged
    await sleep(5);
    b.deleteReadRecord('s', '/w/x.txt'); // deleted, committed with b's next write
    b.beginBatch('s', [{ id: 'd', name: 'delete_file', arguments: {} }], { messages: false });
    const c = SqliteJournal.open(file); // folds a's line now
    expect(c.getReadRecord('s', '/w/x.txt')).toBeUndefined();
    c.close();
    b.close();
    a.close();
    const d = SqliteJournal.open(file);
    expect(d.getReadRecord('s', '/w/x.txt')).toBeUndefined();
    d.close();
  });

  it('review 13, 3: a forget staged earlier and folded late never removes a newer read another process committed', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const a = SqliteJournal.open(file);
    const b = SqliteJournal.open(file);
    a.deleteReadRecord('s', '/w/x.txt');
    a.recordFinishedBatch('s', [call('forget')], [finished('forget')], { messages: false }); // staged
    await sleep(5);
    b.putReadRecord('s', '/w/x.txt', { sha256: 'NEW', readAt: Date.now() });
    b.beginBatch('s', [{ id: 'w', name: 'write_file', arguments: {} }], { messages: false });
    const c = SqliteJournal.open(file);
    expect(c.getReadRecord('s', '/w/x.txt')?.sha256).toBe('NEW');
    c.close();
    b.close();
    a.close();
  });

  it('review 13, 3: a process’s own staged read gives way to a newer one another process committed', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const a = SqliteJournal.open(file);
    const b = SqliteJournal.open(file);
    a.putReadRecord('s', '/w/x.txt', { sha256: 'OLD', readAt: Date.now() });
    a.recordFinishedBatch('s', [call('read')], [finished('read')], { messages: false }); // staged
    await sleep(5);
    b.putReadRecord('s', '/w/x.txt', { sha256: 'NEW', readAt: Date.now() });
    b.beginBatch('s', [{ id: 'w', name: 'write_file', arguments: {} }], { messages: false });
    expect(a.getReadRecord('s', '/w/x.txt')?.sha256).toBe('NEW');
    b.close();
    a.close();
  });

  it('review 13, 4: a journal made with schema version 12 (staged_files without `seen`) opens and is brought to 13', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const db = new Database(file);
    db.exec('ALTER TABLE staged_files DROP COLUMN seen');
    db.exec('ALTER TABLE grants DROP COLUMN covers'); // added by version 14, after 13
    for (const table of ['grants', 'approval_answers', 'governance_modes', 'batches'])
      db.exec(`ALTER TABLE ${table} DROP COLUMN seal`); // added by version 15
    db.pragma('user_version = 12');
    db.close();
    const j = SqliteJournal.open(file);
    const id = j.recordFinishedBatch('s', [call('a')], [finished('a')], { messages: false });
    const reader = SqliteJournal.open(file);
    expect(reader.batch(id)?.status).toBe('complete');
    reader.close();
    j.close();
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect((check.pragma('table_info(staged_files)') as { name: string }[]).map((c) => c.name)).toContain(
      'seen',
    );
    check.close();
  });

  it('review 13, 5: a clock stepped back between two batches never reorders one process’s own messages', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    const now = vi.spyOn(Date, 'now');
    try {
      now.mockReturnValue(2_000_000);
      j.recordFinishedBatch('s', [call('first')], [finished('first')]);
      now.mockReturnValue(1_000_000); // NTP stepped the clock back
      j.recordFinishedBatch('s', [call('second')], [finished('second')]);
    } finally {
      now.mockRestore();
    }
    const tools = j
      .messages('s')
      .filter((m) => m.role === 'tool')
      .map((m) => (m.content as { content: string }).content);
    expect(tools).toEqual(['content of first', 'content of second']);
    j.close();
  });

  it('review 13, 6: a file whose writer is gone from this PID namespace is removed once folded; one from another namespace is kept', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const here = plant(file, DEAD, line('here', DEAD), `+0123456789ab.${ourNamespace()}`);
    const elsewhere = plant(file, DEAD, line('elsewhere', DEAD), '+abcdefabcdef.1');
    const j = SqliteJournal.open(file);
    expect(j.batch('here')?.status).toBe('complete');
    expect(j.batch('elsewhere')?.status).toBe('complete');
    expect(existsSync(here)).toBe(false);
    expect(existsSync(elsewhere)).toBe(true);
    j.close();
  });

  it('review 13, 6: a file of a live writer is never removed, even when all of it is folded', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const me = thisProcess();
    const live = plant(file, me, line('live', me), `+0123456789ab.${ourNamespace()}`);
    const j = SqliteJournal.open(file);
    expect(j.batch('live')?.status).toBe('complete');
    expect(existsSync(live)).toBe(true);
    j.close();
  });

  it('review 13, 7: a file that shrank below the size last seen (a half line cut off) and got a new line is folded', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const me = thisProcess();
    const first = line('a', me);
    const staged = plant(file, me, `${first}${'x'.repeat(2000)}`); // a long write cut short
    const j = SqliteJournal.open(file);
    expect(j.batch('a')?.status).toBe('complete'); // looked at: seen = the size with the half line
    truncateSync(staged, Buffer.byteLength(first)); // the writer cuts its half line off
    appendFileSync(staged, line('b', me)); // and writes a shorter whole line
    expect(statSync(staged).size).toBeLessThan(Buffer.byteLength(first) + 2000);
    expect(j.batch('b')?.status).toBe('complete');
    j.close();
  });

  it('review 13, 8: opening a second journal on a file keeps the first one’s SQLite lock on it', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const a = SqliteJournal.open(file);
    a.governanceMode();
    const inode = statSync(file).ino;
    const ours = () =>
      readFileSync('/proc/locks', 'utf8')
        .split('\n')
        .filter((l) => {
          const f = l.trim().split(/\s+/);
          return f[4] === String(process.pid) && f[5]?.split(':')[2] === String(inode);
        }).length;
    const before = ours();
    expect(before).toBeGreaterThan(0);
    const b = SqliteJournal.open(file);
    expect(ours()).toBe(before);
    b.close();
    a.close();
  });
});
