import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepLease } from '../../src/journal/keep-lease.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { journalWith } from '../helpers/journal-with.js';
import { makeTempDir } from '../helpers/workspace.js';

describe('keeping a lease while a batch runs (issue #17 §2)', () => {
  it('one renewal that cannot be written (the journal busy for a moment) does not hand the live batch to another worker', async () => {
    const file = path.join(makeTempDir('toolgate-lease-'), 'j.db');
    const journal = SqliteJournal.open(file);
    const other = SqliteJournal.open(file);
    let failures = 1;
    const flaky = journalWith(journal, {
      renewLease: (...args) => {
        if (failures === 0) return journal.renewLease(...args);
        failures--;
        throw new Error('database is locked (test)');
      },
    });
    const lease = { worker: 'worker-a', ttlMs: 1_000 };
    const id = journal.beginBatch('S', [{ id: 'c0', name: 'write_file', arguments: { path: 'x' } }], {
      lease,
    });
    const stop = keepLease(flaky, id, lease);
    try {
      await new Promise((r) => setTimeout(r, 2_500)); // two and a half lease lengths, the first renewal failing
      expect(failures).toBe(0);
      expect(other.claimExpiredBatch({ worker: 'worker-b', ttlMs: 60_000 })).toBeUndefined();
      expect(journal.batch(id)?.lease?.worker).toBe('worker-a');
    } finally {
      stop();
      other.close();
      journal.close();
    }
  });
});
