import { existsSync } from 'node:fs';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import type { Journal } from '../../src/journal/journal.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/** The journal with one method failing, as a full disk or a broken connection would make it. */
function failing(journal: SqliteJournal, method: 'sync' | 'markApproved') {
  return new Proxy(journal, {
    get(target, key) {
      if (key === method)
        return method === 'sync'
          ? () => Promise.reject(new Error('disk I/O error (test)'))
          : () => {
              throw new Error('disk I/O error (test)');
            };
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as unknown as Journal;
}

describe('calls the model is told did not run are settled as not run in the journal', () => {
  for (const method of ['sync', 'markApproved'] as const) {
    it(`the journal failing at ${method} before a question: not executed, and no recovery asks again`, async () => {
      const root = makeTempDir('toolgate-notrun-');
      const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
      try {
        const gate = createToolgate({
          roots: [root],
          baseDir: root,
          journal: failing(sqlite, method),
          approver: approveAll,
        });
        const [result] = await gate.execute([
          { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
        ]);
        expect(result?.ok).toBe(false);
        expect(result?.content).toMatch(/not executed: disk I\/O error \(test\)/);
        // Nothing left for `toolgate recover` to ask about and run.
        expect(sqlite.incompleteBatches()).toEqual([]);
        const [summary] = sqlite.recentBatches(1);
        expect(sqlite.batch(summary?.id as string)?.calls.map((c) => c.status)).toEqual(['not_run']);
      } finally {
        sqlite.close();
      }
    });
  }
});

describe('a batch stopped by a failing observer is settled, not completed with calls left unstarted', () => {
  for (const how of ['throws', 'rejects (a promise of another realm)'] as const)
    it(`the caller's observer ${how} on the first result: the second call does not run, and the journal says so`, async () => {
      const root = makeTempDir('toolgate-notrun-');
      const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
      try {
        const gate = createToolgate({ roots: [root], baseDir: root, journal: sqlite, approver: approveAll });
        const results = await gate.execute(
          [
            { id: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'a' } },
            { id: '2', name: 'write_file', arguments: { path: 'b.txt', content: 'b' } },
          ],
          {
            observer: {
              onCallResult: () => {
                if (how === 'throws') throw new Error('observer broke (test)');
                // Not an instance of this realm's Promise: made in another one.
                return runInNewContext('Promise.reject(new Error("observer broke (test)"))') as Promise<void>;
              },
            },
          },
        );
        expect(results.map((r) => r.ok)).toEqual([true, false]);
        const [summary] = sqlite.recentBatches(1);
        const batch = sqlite.batch(summary?.id as string);
        expect(batch?.calls.map((c) => c.status)).toEqual(['done', 'not_run']);
        expect(sqlite.incompleteBatches()).toEqual([]);
      } finally {
        sqlite.close();
      }
    });
});

describe('a call marked running whose fsync then failed did not start: the journal says never run, as the model is told', () => {
  it('write_file allowed without asking, the fsync before it failing: not executed, and not_run in the journal (not "outcome unknown")', async () => {
    const root = makeTempDir('toolgate-notrun-');
    const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
    try {
      const gate = createToolgate({
        roots: [root],
        baseDir: root,
        journal: failing(sqlite, 'sync'),
        config: parseConfigText('[tools.approval]\nallowlist = ["write_file"]\n', 'toolgate.toml'),
      });
      const [result] = await gate.execute([
        { id: '1', name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
      ]);
      expect(result?.content).toMatch(/not executed/);
      expect(existsSync(path.join(root, 'x.txt'))).toBe(false);
      const [summary] = sqlite.recentBatches(1);
      expect(sqlite.batch(summary?.id as string)?.calls.map((c) => c.status)).toEqual(['not_run']);
      expect(sqlite.incompleteBatches()).toEqual([]);
    } finally {
      sqlite.close();
    }
  });
});
