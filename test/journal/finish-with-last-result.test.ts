import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load-config.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { createToolgate } from '../../src/toolgate.js';
import { journalWith } from '../helpers/journal-with.js';
import { makeTempDir } from '../helpers/workspace.js';

/** The journal, with its finishBatch calls counted; `oldStore` makes recordResult ignore `finish`, as a store written before it would. */
function counted(journal: SqliteJournal, oldStore: boolean) {
  const seen = { finishBatch: 0 };
  const proxy = journalWith(journal, {
    finishBatch: (...args) => {
      seen.finishBatch++;
      journal.finishBatch(...args);
    },
    ...(oldStore
      ? {
          recordResult: (batchId, index, result, status) => {
            journal.recordResult(batchId, index, result, status);
            return undefined;
          },
        }
      : {}),
  });
  return { journal: proxy, seen };
}

describe('a side-effecting batch is completed with its last result', () => {
  for (const oldStore of [false, true]) {
    it(
      oldStore
        ? 'a store that ignores `finish` still has every batch completed (by finishBatch, as before)'
        : 'the store completes it in the same commit: no finishBatch after',
      async () => {
        const root = makeTempDir('toolgate-finish-');
        writeFileSync(path.join(root, 'a.txt'), 'a\n');
        const sqlite = SqliteJournal.open(path.join(root, 'j.db'));
        try {
          const { journal, seen } = counted(sqlite, oldStore);
          const gate = createToolgate({
            roots: [root],
            baseDir: root,
            journal,
            config: parseConfigText('[tools.approval]\nallowlist = ["write_file"]\n', 'toolgate.toml'),
          });
          const results = await gate.execute([
            { id: '1', name: 'read_file', arguments: { path: 'a.txt' } },
            { id: '2', name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } },
          ]);
          expect(results.map((r) => r.ok)).toEqual([true, true]);
          await gate.close();
          const [summary] = sqlite.recentBatches(1);
          const batch = sqlite.batch(summary?.id as string);
          expect(batch?.status).toBe('complete');
          expect(batch?.calls.map((c) => c.status)).toEqual(['done', 'done']);
          expect(seen.finishBatch).toBe(oldStore ? 1 : 0);
        } finally {
          sqlite.close();
        }
      },
    );
  }
});
