// Runs a batch of writes in a directory whose filesystem is (nearly) full, then reports what came
// back and what the journal holds. Used by full-disk.test.ts on a small tmpfs, or under
// `ulimit -f` (the OS refusing writes at the file layer) where mounting is not allowed.
import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { approveAll, createToolgate, validateConfig } from '../../dist/index.js';
import { SqliteJournal } from '../../dist/journal/sqlite-journal.js';

process.on('SIGXFSZ', () => {}); // with ulimit -f, a too-big write then fails with EFBIG instead of killing us

const [dir, mode] = [process.argv[2], process.argv[3]];
const root = path.join(dir, 'root');
const journalFile = path.join(root, '.toolgate', 'journal.db');
const journal = SqliteJournal.open(journalFile);
const filler = path.join(dir, 'filler');
if (mode === 'fill') {
  // Leave only a little room: a few writes succeed, then the disk is full.
  const { bavail, bsize } = statfsSync(dir);
  writeFileSync(
    filler,
    Buffer.alloc(Math.max(0, bavail * bsize - Number(process.env.FREE_KB ?? 450) * 1024)),
  );
}
const gate = createToolgate({
  config: validateConfig({ tools: { max_tool_calls_per_batch: 40 } }),
  roots: [root],
  journal,
  session: 'full',
  approver: approveAll,
});
const calls = Array.from({ length: 40 }, (_, i) => ({
  id: `w${i}`,
  name: 'write_file',
  arguments: { path: `out/f${i}.txt`, content: 'x'.repeat(4 * 1024) },
}));
const results = await gate.execute(calls);
rmSync(filler, { force: true });
journal.close();
// Space is back: the journal must open, intact, with every committed result.
const again = SqliteJournal.open(journalFile);
const batch = again.recentBatches(1)[0];
const record = batch ? again.batch(batch.id) : undefined;
again.close();
process.stdout.write(
  JSON.stringify({
    results: results.map((r) => ({
      id: r.id,
      ok: r.ok,
      type: r.error?.type ?? null,
      message: r.error?.message ?? null,
    })),
    journal: record
      ? record.calls.map((c) => ({ id: c.id, status: c.status, ok: c.result?.ok ?? null }))
      : null,
  }),
);
