// Issue #14 item 4: a side-effecting call costs one commit and one fsync before it starts. When
// nothing in a batch waits for a person, its first call's `running` rides in the batch's own
// commit; where a person is asked first, the call is marked running only as it starts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load-config.js';
import type { Approver } from '../../src/core/confirmation.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate } from '../../src/toolgate.js';
import { journalWith } from '../helpers/journal-with.js';
import { makeTempDir } from '../helpers/workspace.js';

/** The call rows as another connection sees them (what a crash would leave). */
const committedCalls = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT call_index, status FROM calls ORDER BY rowid').all() as {
      call_index: number;
      status: string;
    }[];
  } finally {
    db.close();
  }
};

function setup(allow: boolean, beginsRunning = true) {
  const root = makeTempDir('toolgate-begin-running-');
  writeFileSync(path.join(root, 'a.txt'), 'a\n');
  const file = path.join(root, 'j.db');
  const sqlite = SqliteJournal.open(file);
  const seen = { markRunning: 0, atSync: [] as { call_index: number; status: string }[][] };
  const journal = journalWith(sqlite, {
    ...(beginsRunning ? {} : { beginsRunning: false }),
    markRunning: (...args) => {
      seen.markRunning++;
      sqlite.markRunning(...args);
    },
    sync: () => {
      seen.atSync.push(committedCalls(file));
      return sqlite.sync();
    },
  });
  const atApproval: { call_index: number; status: string }[][] = [];
  const approver: Approver = async () => {
    atApproval.push(committedCalls(file));
    return { kind: 'approve_all' };
  };
  const gate = createToolgate({
    roots: [root],
    baseDir: root,
    journal,
    approver,
    config: parseConfigText(
      allow ? '[tools.approval]\nallowlist = ["write_file"]\n' : '[tools.approval]\ndenylist = []\n',
      'toolgate.toml',
    ),
  });
  return { root, file, sqlite, gate, seen, atApproval };
}

describe('issue #14 item 4: the first call of a batch that asks nothing is running from the batch’s own commit', () => {
  it('a write nobody is asked about: no commit of its own for `running`; it is running in the journal before the fsync that precedes it', async () => {
    const { sqlite, gate, seen } = setup(true);
    const [r] = await gate.execute([
      { id: '1', name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } },
    ]);
    expect(r?.ok).toBe(true);
    expect(seen.markRunning).toBe(0);
    expect(seen.atSync[0]).toEqual([{ call_index: 0, status: 'running' }]);
    await gate.close();
    const batch = sqlite.batch(sqlite.recentBatches(1)[0]?.id as string);
    expect(batch?.status).toBe('complete');
    expect(batch?.calls[0]?.startedAt).toBeTypeOf('number');
    sqlite.close();
  });

  it('later calls of the batch are marked running as each starts', async () => {
    const { sqlite, gate, seen } = setup(true);
    const results = await gate.execute([
      { id: '1', name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } },
      { id: '2', name: 'write_file', arguments: { path: 'c.txt', content: 'c\n' } },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(seen.markRunning).toBe(1);
    expect(seen.atSync[1]).toEqual([
      { call_index: 0, status: 'done' },
      { call_index: 1, status: 'running' },
    ]);
    await gate.close();
    sqlite.close();
  });

  it('in a batch where a person is asked, no call is running while they are asked (the first, allowed, call included); each is marked as it starts', async () => {
    const { sqlite, gate, seen, atApproval } = setup(false);
    const results = await gate.execute([
      { id: '1', name: 'read_file', arguments: { path: 'a.txt' } },
      { id: '2', name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(atApproval).toHaveLength(1);
    expect(atApproval[0]).toEqual([
      { call_index: 0, status: 'planned' },
      { call_index: 1, status: 'awaiting_approval' },
    ]);
    expect(seen.markRunning).toBe(2);
    await gate.close();
    sqlite.close();
  });

  it('a store that cannot begin a call running has it marked as it starts, as before', async () => {
    const { sqlite, gate, seen } = setup(true, false);
    const [r] = await gate.execute([
      { id: '1', name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } },
    ]);
    expect(r?.ok).toBe(true);
    expect(seen.markRunning).toBe(1);
    expect(seen.atSync[0]).toEqual([{ call_index: 0, status: 'running' }]);
    await gate.close();
    sqlite.close();
  });
});
