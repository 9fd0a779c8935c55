import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { JournalError } from '../../src/journal/journal.js';
import { SCHEMA_VERSION } from '../../src/journal/schema.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { orphanBatches } from '../helpers/orphan-batches.js';
import { makeTempDir } from '../helpers/workspace.js';
import { journalConformance, streamingConformance } from './journal-conformance.js';

const sqliteFile = () => {
  const file = path.join(makeTempDir('toolgate-journal-'), 'journal.db');
  const journal = SqliteJournal.open(file);
  return { journal, reopen: () => SqliteJournal.open(file) };
};
journalConformance('SQLite file', sqliteFile);
streamingConformance('SQLite file', sqliteFile);

describe('SqliteJournal', () => {
  it('uses WAL, synchronous=NORMAL (fsyncs asked for by sync()) and a versioned schema', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    // synchronous = 1 is NORMAL: a commit is in the WAL when it returns; sync() fsyncs it.
    expect(j.settings()).toEqual({
      journalMode: 'wal',
      synchronous: 1,
      busyTimeoutMs: 5000,
      schemaVersion: SCHEMA_VERSION,
    });
    j.close();
  });

  it('a file from a newer toolgate is refused, not guessed at', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    expect(() => SqliteJournal.open(file)).toThrow(/newer than this toolgate/);
  });

  it('a damaged file gives a clear error naming it', () => {
    const file = path.join(makeTempDir(), 'j.db');
    writeFileSync(
      file,
      'this is not a database at all, just text that is long enough to look like a header..',
    );
    expect(() => SqliteJournal.open(file)).toThrow(JournalError);
    expect(() => SqliteJournal.open(file)).toThrow(/damaged or not a toolgate database/);
  });

  it('a journal holding a trigger or view toolgate never makes is refused before anything is written (hostile review of issue #31: a planted trigger rewrote later audit rows)', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const db = new Database(file);
    db.exec(
      "CREATE TRIGGER hide AFTER INSERT ON calls BEGIN UPDATE calls SET arguments = '{}' WHERE batch_id = NEW.batch_id; END",
    );
    const before = (db.prepare('SELECT count(*) AS n FROM batches').get() as { n: number }).n;
    db.close();
    expect(() => SqliteJournal.open(file)).toThrow(JournalError);
    expect(() => SqliteJournal.open(file)).toThrow(/holds trigger "hide", which toolgate never makes/);
    const after = new Database(file, { readonly: true });
    expect((after.prepare('SELECT count(*) AS n FROM batches').get() as { n: number }).n).toBe(before);
    after.close();
  });

  it('a folder named as the journal: the message says to name a file in it, not to remove it (hostile review F7)', () => {
    const dir = makeTempDir();
    expect(() => SqliteJournal.open(dir)).toThrow(
      `name a file, not the folder ${dir}, for the journal (e.g. ${path.join(dir, 'journal.db')})`,
    );
    expect(existsSync(dir)).toBe(true);
  });

  it('a file that is not a database (`--journal /etc/passwd`) is refused untouched: its mode is never tightened, nothing written (hostile review of issue #31)', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'passwd');
    const text = 'root:x:0:0:root:/root:/bin/bash\n';
    writeFileSync(file, text);
    chmodSync(file, 0o644);
    symlinkSync(dir, path.join(dir, 'etc'));
    for (const name of [file, path.join(dir, 'etc', 'passwd')]) {
      expect(() => SqliteJournal.open(name)).toThrow(/damaged or not a toolgate database/);
      expect(statSync(file).mode & 0o777).toBe(0o644);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(existsSync(`${file}-wal`) || existsSync(`${file}-journal`)).toBe(false);
    }
  });

  it('a read-only file gives a clear error and keeps what was committed', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'j.db');
    const j = SqliteJournal.open(file);
    const id = j.beginBatch('s', [{ id: 'a', name: 't', arguments: {} }]);
    j.close();
    const ro = new Database(file, { readonly: true });
    expect(ro.prepare('SELECT count(*) AS n FROM calls WHERE batch_id = ?').get(id)).toEqual({ n: 1 });
    ro.close();
    // As root, permissions do not stop writes: open read-only at the SQLite level instead.
    const readonly = new Database(file, { readonly: true });
    expect(() => readonly.prepare("INSERT INTO sessions VALUES ('x', 1)").run()).toThrow(/readonly/i);
    readonly.close();
    chmodSync(file, 0o644);
  });

  it('a lock held by another process is a clear "locked" error after the busy timeout', () => {
    const file = path.join(makeTempDir(), 'j.db');
    SqliteJournal.open(file).close();
    const holder = new Database(file);
    holder.pragma('journal_mode = WAL');
    holder.prepare('BEGIN EXCLUSIVE').run();
    const j = SqliteJournal.open(file, { busyTimeoutMs: 50 });
    expect(() => j.beginBatch('s', [{ id: 'a', name: 't', arguments: {} }])).toThrow(
      /locked by another process/,
    );
    holder.prepare('ROLLBACK').run();
    holder.close();
    // Once free, it works, and nothing half-written was left behind.
    const id = j.beginBatch('s', [{ id: 'a', name: 't', arguments: {} }]);
    expect(j.incompleteBatches().map((b) => b.id)).toEqual([id]);
    j.close();
  });

  it('settling checks the batch inside its own write: a discard by another process just before it is never overwritten (review lead L5)', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const seed = SqliteJournal.open(file);
    const id = seed.beginBatch('s', [{ id: 'a', name: 'write_file', arguments: {} }]);
    seed.markRunning(id, 0);
    seed.close();
    orphanBatches(file);
    const a = SqliteJournal.open(file);
    const b = SqliteJournal.open(file);
    // Another process discards the batch right after this one looked at it (through `batch()`).
    const look = a.batch.bind(a);
    let discarded = false;
    a.batch = (batchId: string) => {
      const record = look(batchId);
      if (!discarded) {
        discarded = true;
        b.discardBatch(batchId);
      }
      return record;
    };
    let resumed: unknown;
    try {
      resumed = a.resumeBatch(id);
    } catch (error) {
      resumed = error;
    }
    const after = b.batch(id);
    if (discarded) {
      expect(resumed).toBeInstanceOf(Error); // it saw the discard, inside its write
      expect(after?.status).toBe('discarded');
    } else expect(after?.status).toBe('resumed'); // it never looked outside its write
    expect(after?.calls[0]?.status).not.toBe('done');
    b.close();
    a.close();
  });
});
