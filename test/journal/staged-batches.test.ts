// Read-only batches are staged as one row and folded into batches and calls off the reply's path
// (docs/DURABILITY.md, issue #14 item 4). Nobody may ever read around a staged batch: not this
// connection, not another, not a process that opens the file after the stager was killed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FinishedCall } from '../../src/journal/journal.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { killedAt } from '../helpers/killed-at.js';
import { makeTempDir } from '../helpers/workspace.js';

const call = (id: string) => ({ id, name: 'read_file', arguments: { path: `${id}.txt` } });
const finished = (id: string, content = `content of ${id}`): FinishedCall => ({
  result: { id, name: 'read_file', ok: true, content, error: null, latencyMs: 1 },
  status: 'done',
  startedAt: 1,
  finishedAt: 2,
});
/** Batches staged and not folded yet: rows in SQLite, and whole lines of staging files past their folded mark. */
const stagedRows = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    const rows = (db.prepare('SELECT count(*) AS n FROM staged_batches').get() as { n: number }).n;
    const marks = db.prepare('SELECT name, folded FROM staged_files').all() as {
      name: string;
      folded: number;
    }[];
    const folded = new Map(marks.map((m) => [m.name, m.folded]));
    const dir = `${file}.staged`;
    let lines = 0;
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      const rest = readFileSync(path.join(dir, name)).subarray(folded.get(name) ?? 0);
      lines += rest.filter((byte) => byte === 10).length;
    }
    return rows + lines;
  } finally {
    db.close();
  }
};

describe('staged read-only batches (issue #14 item 4)', () => {
  it('a finished batch is one staged row until folded, and every reader sees it as a batch at once', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const writer = SqliteJournal.open(file);
    const other = SqliteJournal.open(file);
    const id = writer.recordFinishedBatch('s', [call('a')], [finished('a')], { messages: false });
    expect(stagedRows(file)).toBe(1); // not folded yet: the fold waits for more or for the timer
    // Another connection (another process: `toolgate journal`, the console) folds before it reads.
    const seen = other.batch(id);
    expect(seen?.status).toBe('complete');
    expect(seen?.calls.map((c) => [c.id, c.status, c.result?.content])).toEqual([
      ['a', 'done', 'content of a'],
    ]);
    expect(stagedRows(file)).toBe(0);
    expect(writer.batch(id)?.calls).toHaveLength(1);
    other.close();
    writer.close();
  });

  it('each kind of reader folds first: recent batches, export, rate counts, prefixes, messages, prune', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const writer = SqliteJournal.open(file);
    const readers: [string, (j: SqliteJournal, id: string) => unknown][] = [
      ['recentBatches', (j, id) => j.recentBatches(5).some((b) => b.id === id)],
      ['exportCalls', (j, id) => [...j.exportCalls(0)].some((c) => c.batch === id)],
      ['countCallsSince', (j) => j.countCallsSince('read_file', 0) === 1],
      ['batchIdsStartingWith', (j, id) => j.batchIdsStartingWith(id.slice(0, 8), 5).includes(id)],
      ['messages', (j) => j.messages('s').length === 2],
      ['prune', (j, id) => j.prune(Date.now() + 60_000).batches === 1 && j.batch(id) === undefined],
    ];
    for (const [name, read] of readers) {
      const f = path.join(makeTempDir(), `${name}.db`);
      const w = SqliteJournal.open(f);
      const r = SqliteJournal.open(f);
      const id = w.recordFinishedBatch('s', [call('a')], [finished('a')]);
      expect(stagedRows(f), name).toBe(1);
      expect(read(r, id), name).toBe(true);
      r.close();
      w.close();
    }
    writer.close();
  });

  it('what this connection writes next lands after what it staged (messages keep their order)', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    j.appendMessage('s', 'user', 'read a');
    j.recordFinishedBatch('s', [call('a')], [finished('a')], { assistantText: 'reading' });
    j.appendMessage('s', 'user', 'thanks');
    expect(stagedRows(file)).toBe(0); // the append folded it first, in the same transaction
    expect(j.messages('s').map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    j.close();
  });

  it('folds 256 at a time (or 4 MB of them) off the reply path, the rest after a short wait, and all at close', async () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    for (let i = 0; i < 255; i++)
      j.recordFinishedBatch('s', [call(`c${i}`)], [finished(`c${i}`)], { messages: false });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stagedRows(file)).toBe(255);
    j.recordFinishedBatch('s', [call('c255')], [finished('c255')], { messages: false });
    expect(stagedRows(file)).toBe(256);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stagedRows(file)).toBe(0);
    // Big results fold sooner: what waits is held in memory too.
    const big = 'x'.repeat(1 << 20);
    for (let i = 0; i < 4; i++)
      j.recordFinishedBatch('s', [call(`b${i}`)], [finished(`b${i}`, big)], { messages: false });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stagedRows(file)).toBe(0);
    j.recordFinishedBatch('s', [call('late')], [finished('late')], { messages: false });
    expect(stagedRows(file)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(stagedRows(file)).toBe(0);
    j.recordFinishedBatch('s', [call('last')], [finished('last')], { messages: false });
    j.close();
    expect(stagedRows(file)).toBe(0);
    const again = SqliteJournal.open(file);
    expect(again.recentBatches(1000)).toHaveLength(262);
    again.close();
  });

  it('a process killed with batches still staged loses none of them: the next opener folds them', async () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'j.db');
    const module = path.resolve('src/journal/sqlite-journal.ts');
    // Stages 10 batches, says so, and is killed before any fold (the timer is 100 ms away).
    const script = `
      import { SqliteJournal } from ${JSON.stringify(module)};
      const j = SqliteJournal.open(${JSON.stringify(file)});
      for (let i = 0; i < 10; i++)
        j.recordFinishedBatch('s', [{ id: 'k' + i, name: 'read_file', arguments: {} }],
          [{ result: { id: 'k' + i, name: 'read_file', ok: true, content: 'kept ' + i, error: null, latencyMs: 0 }, status: 'done', finishedAt: 1 }]);
      process.stdout.write('staged\\n');
      setInterval(() => {}, 1000);
    `;
    await killedAt(script, 'staged');
    expect(stagedRows(file)).toBe(10);
    const j = SqliteJournal.open(file);
    expect(stagedRows(file)).toBe(0);
    const contents = j
      .messages('s')
      .filter((m) => m.role === 'tool')
      .map((m) => (m.content as { content: string }).content);
    expect(contents).toEqual(Array.from({ length: 10 }, (_, i) => `kept ${i}`));
    j.close();
  });

  it('a damaged row among good ones: the good ones fold, their messages numbered without a gap, in order', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    j.recordFinishedBatch('s', [call('a')], [finished('a')]);
    const db = new Database(file);
    db.prepare('INSERT INTO staged_batches (body) VALUES (?)').run('{bad json');
    db.close();
    j.recordFinishedBatch('s', [call('b')], [finished('b')]);
    const other = SqliteJournal.open(file);
    const messages = other.messages('s');
    expect(messages.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    expect(
      messages.filter((m) => m.role === 'tool').map((m) => (m.content as { content: string }).content),
    ).toEqual(['content of a', 'content of b']);
    expect(other.unreadableStaged().map((u) => u.problem)).toEqual([expect.stringMatching(/JSON/)]);
    other.close();
    j.close();
  });

  it('review finding: a full disk while folding ends that write (nothing committed piece by piece, no good row called damaged)', () => {
    const file = path.join(makeTempDir(), 'j.db');
    // The journal's own connection, to make its disk "full" (max_page_count) under it.
    let conn: Database.Database | undefined;
    const prepare = Database.prototype.prepare;
    Database.prototype.prepare = function (this: Database.Database, ...args: Parameters<typeof prepare>) {
      conn ??= this;
      return prepare.apply(this, args);
    } as typeof prepare;
    let j: SqliteJournal;
    try {
      j = SqliteJournal.open(file);
    } finally {
      Database.prototype.prepare = prepare;
    }
    for (let i = 0; i < 3; i++) j.recordFinishedBatch('s', [call(`small${i}`)], [finished(`small${i}`)]);
    const big = { id: 'big', name: 'read_file', arguments: { path: 'x'.repeat(60_000) } };
    j.recordFinishedBatch('s', [big], [finished('big')]);
    const pages = conn?.pragma('page_count', { simple: true }) as number;
    conn?.pragma(`max_page_count = ${pages + 4}`);
    expect(() => j.beginBatch('s', [call('after')])).toThrow();
    const reader = new Database(file, { readonly: true });
    expect((reader.prepare('SELECT count(*) AS n FROM batches').get() as { n: number }).n).toBe(0);
    reader.close();
    expect(stagedRows(file)).toBe(4); // all kept for the next try
    conn?.pragma('max_page_count = 1073741823');
    expect(j.unreadableStaged()).toEqual([]); // none was damaged: all fold now
    expect(j.recentBatches(10)).toHaveLength(4);
    j.close();
  });

  it('a damaged staged row (review finding, HIGH) is kept and named; it stops neither the rows after it nor any write; counting calls fails closed until it is repaired', () => {
    const file = path.join(makeTempDir(), 'j.db');
    const j = SqliteJournal.open(file);
    j.recordFinishedBatch('s', [call('before')], [finished('before')], { messages: false });
    const db = new Database(file);
    db.prepare('INSERT INTO staged_batches (body) VALUES (?)').run('{bad json');
    db.close();
    const after = j.recordFinishedBatch('s', [call('after')], [finished('after')], { messages: false });
    // A side effect in this process (which has staged rows of its own) still journals.
    const w = j.beginBatch('s', [{ id: 'w', name: 'write_file', arguments: {} }]);
    j.markRunning(w, 0);
    j.recordResult(w, 0, {
      id: 'w',
      name: 'write_file',
      ok: true,
      content: 'wrote',
      error: null,
      latencyMs: 0,
    });
    j.finishBatch(w);
    const other = SqliteJournal.open(file);
    expect(other.batch(after)?.calls[0]?.result?.content).toBe('content of after');
    expect(other.recentBatches(10)).toHaveLength(3);
    const [bad] = other.unreadableStaged();
    expect(bad?.problem).toMatch(/JSON/);
    expect(stagedRows(file)).toBe(1);
    expect(() => other.countCallsSince('read_file', 0)).toThrow(/cannot read.*toolgate journal repair/);
    expect(other.dropUnreadableStaged()).toEqual([{ seq: bad?.seq, body: '{bad json' }]);
    expect(stagedRows(file)).toBe(0);
    expect(other.countCallsSince('read_file', 0)).toBe(2);
    other.close();
    j.close();
  });

  it('Property: staged and directly written batches read back exactly as recorded, in order, from any connection', () => {
    type Op =
      | { kind: 'read'; calls: number }
      | { kind: 'write'; peek: boolean }
      | { kind: 'message' }
      | { kind: 'look' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('read' as const), calls: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('write' as const), peek: fc.boolean() }),
      fc.record({ kind: fc.constant('message' as const) }),
      fc.record({ kind: fc.constant('look' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 25 }), fc.boolean(), (ops, reopen) => {
        const file = path.join(makeTempDir(), 'p.db');
        const j = SqliteJournal.open(file);
        const other = SqliteJournal.open(file);
        const expected: { id: string; contents: string[] }[] = [];
        const roles: string[] = [];
        let n = 0;
        for (const o of ops) {
          if (o.kind === 'read') {
            const ids = Array.from({ length: o.calls }, () => `r${n++}`);
            const id = j.recordFinishedBatch(
              's',
              ids.map(call),
              ids.map((i) => finished(i)),
            );
            expected.push({ id, contents: ids.map((i) => `content of ${i}`) });
            roles.push('assistant', ...ids.map(() => 'tool'));
          } else if (o.kind === 'write') {
            const cid = `w${n++}`;
            const id = j.beginBatch('s', [{ id: cid, name: 'write_file', arguments: {} }]);
            j.markRunning(id, 0);
            // Written directly: another connection sees the call running at once.
            if (o.peek) expect(other.batch(id)?.calls.map((c) => c.status)).toEqual(['running']);
            j.recordResult(id, 0, {
              id: cid,
              name: 'write_file',
              ok: true,
              content: `wrote ${cid}`,
              error: null,
              latencyMs: 0,
            });
            j.finishBatch(id);
            expected.push({ id, contents: [`wrote ${cid}`] });
            roles.push('assistant', 'tool');
          } else if (o.kind === 'message') {
            j.appendMessage('s', 'user', `m${n++}`);
            roles.push('user');
          } else {
            expect(other.recentBatches(1000)).toHaveLength(expected.length);
          }
        }
        if (reopen) j.close();
        const reader = reopen ? SqliteJournal.open(file) : other;
        const recent = reader.recentBatches(1000);
        expect(recent.map((b) => b.id).sort()).toEqual(expected.map((e) => e.id).sort());
        for (const e of expected)
          expect(reader.batch(e.id)?.calls.map((c) => c.result?.content)).toEqual(e.contents);
        expect(reader.messages('s').map((m) => m.role)).toEqual(roles);
        if (reopen) reader.close();
        else j.close();
        other.close();
        expect(stagedRows(file)).toBe(0);
      }),
      { numRuns: 100 },
    );
  });
});
