import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JournalReadCache } from '../../src/journal/journal-read-cache.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import type { ResolvedPath } from '../../src/sandbox/sandbox.js';
import { sha256 } from '../../src/tools/fs/read-cache.js';
import { StaleGuard } from '../../src/tools/fs/stale-guard.js';
import { journalWith } from '../helpers/journal-with.js';
import { makeTempDir } from '../helpers/workspace.js';

// What planning reads from the journal per call, made cheaper without reading around another
// process's change (issue #14 item 4).

describe('journal reads on the call path', () => {
  it('atOneMoment: the mode and grants are looked up as of one moment inside it; outside, another connection’s change is seen at once', () => {
    const file = path.join(makeTempDir('toolgate-jr-'), 'j.db');
    const j = SqliteJournal.open(file);
    const other = SqliteJournal.open(file);
    expect(j.governanceMode()).toBeUndefined();
    const inside = j.atOneMoment(() => {
      const first = j.governanceMode()?.mode;
      other.recordMode('LOCKDOWN', 'incident', 'ops');
      return [first, j.governanceMode()?.mode, j.listGrants('s').length];
    });
    expect(inside).toEqual([undefined, undefined, 0]); // one moment: the change came after it
    expect(j.governanceMode()?.mode).toBe('LOCKDOWN'); // seen at once after it
    other.recordMode('DEGRADED', 'calmer', 'ops');
    expect(j.governanceMode()?.mode).toBe('DEGRADED');
    // Nested: still one moment, and the moment ends with the outermost.
    j.atOneMoment(() => j.atOneMoment(() => j.governanceMode()));
    other.recordMode('NORMAL', 'over', 'ops');
    expect(j.governanceMode()?.mode).toBe('NORMAL');
    other.close();
    j.close();
  });

  it('the read cache answers a repeated read from memory and writes no row for the same content again', () => {
    const file = path.join(makeTempDir('toolgate-jr-'), 'j.db');
    const j = SqliteJournal.open(file);
    let puts = 0;
    let gets = 0;
    const counted = journalWith(j, {
      putReadRecord: (...args) => {
        puts++;
        j.putReadRecord(...args);
      },
      getReadRecord: (...args) => {
        gets++;
        return j.getReadRecord(...args);
      },
    });
    const cache = new JournalReadCache(counted, 's');
    cache.record('/w/a.txt', 'x1', 1);
    expect([puts, gets]).toEqual([1, 1]); // first read: asked the journal once, wrote once
    for (let i = 0; i < 5; i++) cache.record('/w/a.txt', 'x1', 2 + i);
    expect([puts, gets]).toEqual([1, 1]); // the same content again: nothing asked, nothing written
    expect(cache.get('/w/a.txt')).toEqual({ sha256: 'x1', readAt: 1 }); // when it was first read
    cache.record('/w/a.txt', 'x2', 9);
    expect(puts).toBe(2);
    // Another process of the session (a new cache) finds it in the journal.
    expect(new JournalReadCache(j, 's').get('/w/a.txt')).toEqual({ sha256: 'x2', readAt: 9 });
    cache.forget('/w/a.txt');
    expect(new JournalReadCache(j, 's').get('/w/a.txt')).toBeUndefined();
    expect(cache.get('/w/a.txt')).toBeUndefined();
    // After its own write the session knows the content: recorded without asking the journal.
    cache.recordWrite('/w/new.txt', 'w1');
    expect([puts, gets]).toEqual([3, 2]); // (the get after forget asked once)
    cache.recordWrite('/w/new.txt', 'w1');
    expect(puts).toBe(3);
    expect(new JournalReadCache(j, 's').get('/w/new.txt')?.sha256).toBe('w1');
    j.close();
  });

  it('through the stale guard: a read asks the journal before recording (no overwrite of what the session recorded), a write of our own does not', () => {
    const file = path.join(makeTempDir('toolgate-jr-'), 'j.db');
    const earlier = SqliteJournal.open(file);
    new JournalReadCache(earlier, 's').record('/w/a.txt', sha256('same'), 1);
    earlier.close();
    const j = SqliteJournal.open(file);
    let puts = 0;
    const counted = journalWith(j, {
      putReadRecord: (...args) => {
        puts++;
        j.putReadRecord(...args);
      },
    });
    const guard = new StaleGuard(new JournalReadCache(counted, 's'));
    const target = { absolute: '/w/a.txt', relative: 'a.txt' } as ResolvedPath;
    guard.remember(target, 'same'); // a read of content the session already recorded
    expect(puts).toBe(0);
    guard.rememberWrite({ absolute: '/w/new.txt', relative: 'new.txt' } as ResolvedPath, 'fresh');
    expect(puts).toBe(1);
    j.close();
  });

  it('a remembered entry is what this process read: another process of the session recording newer content makes the guard compare with this one’s own read', () => {
    const file = path.join(makeTempDir('toolgate-jr-'), 'j.db');
    const j = SqliteJournal.open(file);
    const mine = new JournalReadCache(j, 's');
    mine.record('/w/a.txt', 'old', 1);
    const otherProcess = SqliteJournal.open(file);
    new JournalReadCache(otherProcess, 's').record('/w/a.txt', 'new', 2);
    // The guard compares the file (now "new") with what this process read ("old"): a refusal, the safe side.
    expect(mine.get('/w/a.txt')?.sha256).toBe('old');
    otherProcess.close();
    j.close();
  });

  it('Property: the mode and grants this connection sees are always what a fresh connection reads, whatever other connections commit meanwhile (the WAL-index shortcut never hides a commit)', () => {
    type Step =
      | { kind: 'mode'; mode: 'NORMAL' | 'ALERT' | 'LOCKDOWN' }
      | { kind: 'grant'; tool: string }
      | { kind: 'unrelated' }
      | { kind: 'checkpoint' }
      | { kind: 'own' }
      | { kind: 'look' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('mode' as const), mode: fc.constantFrom('NORMAL', 'ALERT', 'LOCKDOWN') }),
      fc.record({ kind: fc.constant('grant' as const), tool: fc.constantFrom('write_file', 'edit_file') }),
      fc.record({ kind: fc.constant('unrelated' as const) }),
      fc.record({ kind: fc.constant('checkpoint' as const) }),
      fc.record({ kind: fc.constant('own' as const) }),
      fc.record({ kind: fc.constant('look' as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const file = path.join(makeTempDir('toolgate-jr-'), 'j.db');
        const j = SqliteJournal.open(file);
        const other = SqliteJournal.open(file);
        const raw = new Database(file); // a plain connection, as another program would use
        const truth = () => {
          const fresh = new Database(file, { readonly: true });
          try {
            const mode = fresh
              .prepare('SELECT mode FROM governance_modes ORDER BY seq DESC LIMIT 1')
              .pluck()
              .get();
            const grants = fresh
              .prepare("SELECT count(*) FROM grants WHERE session_id = 's' OR session_id IS NULL")
              .pluck()
              .get();
            return [mode ?? null, grants];
          } finally {
            fresh.close();
          }
        };
        const seen = () => [j.governanceMode()?.mode ?? null, j.listGrants('s').length];
        let n = 0;
        for (const st of steps) {
          if (st.kind === 'mode') other.recordMode(st.mode, 'test', 'ops');
          else if (st.kind === 'grant')
            other.addGrant({
              tool: st.tool,
              covers: { kind: 'origin', origin: 'https://example.com' },
              scope: 'session',
              session: 's',
              createdAt: n++,
            });
          else if (st.kind === 'unrelated') other.appendMessage('t', 'user', `m${n++}`);
          else if (st.kind === 'checkpoint') raw.pragma('wal_checkpoint(TRUNCATE)');
          else if (st.kind === 'own') j.appendMessage('u', 'user', `o${n++}`);
          else expect(seen()).toEqual(truth());
        }
        expect(seen()).toEqual(truth());
        raw.close();
        other.close();
        j.close();
      }),
      { numRuns: 150 },
    );
  });
});
