// The process the crash tests kill with SIGKILL at random moments. It runs batches forever: a
// read-only batch (three reads), a batch of side effects (overwrite a big file with write_file,
// patch two files with apply_patch, and a side effect that appends the call id to a counter file,
// so a second execution of any call would show), and a mixed one (reads around a side effect).
import { appendFileSync, closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { approveAll, createToolgate, defineTool, validateConfig } from '../../dist/index.js';
import { SqliteJournal } from '../../dist/journal/sqlite-journal.js';

const [root, journalFile, counterFile] = process.argv.slice(2);
const journal = SqliteJournal.open(journalFile);

const appendCounter = defineTool({
  name: 'append_counter',
  description: 'appends the call id to the counter file',
  args: z.strictObject({ tag: z.string() }),
  tier: 'side_effecting',
  summary: (a) => `count ${a.tag}`,
  execute: async (a) => {
    const fd = openSync(counterFile, 'a');
    writeSync(fd, `${a.tag}\n`);
    fsyncSync(fd);
    closeSync(fd);
    // Widen the window in which the side effect is done but its result is not yet committed.
    await new Promise((resolve) => setTimeout(resolve, 15));
    return `counted ${a.tag}`;
  },
});

const gate = createToolgate({
  config: validateConfig({ tools: { approval: { mode: 'auto' }, max_tool_calls_per_batch: 16 } }),
  roots: [root],
  journal,
  session: `worker-${process.pid}`,
  approver: approveAll,
  tools: [appendCounter],
});

const BIG = 256 * 1024;
const version = (n) => `version ${n}\n${'x'.repeat(BIG)}\nend ${n}\n`;
appendFileSync(`${root}/.started`, `${process.pid}\n`);
process.stdout.write('ready\n'); // the parent times its kill from here, whatever start-up cost
for (let n = 0; ; n++) {
  const tag = `${process.pid}-${n}`;
  const [read1, read2, read3] = await gate.execute([
    { id: `${tag}-r1`, name: 'read_file', arguments: { path: 'big.txt' } },
    { id: `${tag}-r2`, name: 'read_file', arguments: { path: 'p1.txt' } },
    { id: `${tag}-r3`, name: 'read_file', arguments: { path: 'p2.txt' } },
  ]);
  const current = (read2?.content ?? '').trim();
  const patch = [
    '*** Begin Patch',
    '*** Update File: p1.txt',
    '@@',
    `-${current}`,
    `+${tag}`,
    '*** Update File: p2.txt',
    '@@',
    `-${(read3?.content ?? '').trim()}`,
    `+${tag}`,
    '*** End Patch',
  ].join('\n');
  await gate.execute([
    { id: `${tag}-c1`, name: 'append_counter', arguments: { tag: `${tag}-c1` } },
    {
      id: `${tag}-w`,
      name: 'write_file',
      arguments: { path: 'big.txt', content: version(tag), overwrite: true },
    },
    { id: `${tag}-c2`, name: 'append_counter', arguments: { tag: `${tag}-c2` } },
    { id: `${tag}-p`, name: 'apply_patch', arguments: { patch } },
    { id: `${tag}-c3`, name: 'append_counter', arguments: { tag: `${tag}-c3` } },
  ]);
  // Mixed: read-only calls around a side effect (the batch is journaled before it runs).
  await gate.execute([
    { id: `${tag}-m1`, name: 'read_file', arguments: { path: 'p1.txt' } },
    { id: `${tag}-c4`, name: 'append_counter', arguments: { tag: `${tag}-c4` } },
    { id: `${tag}-m2`, name: 'read_file', arguments: { path: 'p2.txt' } },
  ]);
  void read1;
}
