// Runs under strace for test/crash/fsync-order.test.ts. Three phases, each announced by a write to
// the phase file (visible in the trace with its path): read-only batches, side-effecting calls in
// sequence, eight sessions' side-effecting calls at once on one journal, then write_file: new files,
// then replacing three of them, then deleting one.
import { closeSync, openSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { approveAll, createToolgate, defineTool, validateConfig } from '../../dist/index.js';
import { SqliteJournal } from '../../dist/journal/sqlite-journal.js';

const [root, journalFile, effectFile, phaseFile] = process.argv.slice(2);
const journal = SqliteJournal.open(journalFile);
const phase = (name) => {
  const fd = openSync(phaseFile, 'a');
  writeSync(fd, `${name}\n`);
  closeSync(fd);
};

const effect = defineTool({
  name: 'effect',
  description: 'appends its tag to the effect file',
  args: z.strictObject({ tag: z.string() }),
  tier: 'side_effecting',
  summary: (a) => `effect ${a.tag}`,
  execute: async (a) => {
    const fd = openSync(effectFile, 'a');
    writeSync(fd, `${a.tag}\n`);
    closeSync(fd);
    return a.tag;
  },
});
const peek = defineTool({
  name: 'peek',
  description: 'reads nothing',
  args: z.strictObject({ n: z.number() }),
  tier: 'read_only',
  summary: () => 'peek',
  execute: async (a) => `peeked ${a.n}`,
});
const gate = (session) =>
  createToolgate({
    config: validateConfig({ tools: { approval: { mode: 'auto' } } }),
    roots: [root],
    journal,
    session,
    builtins: false,
    tools: [effect, peek],
  });

const one = gate('one');
phase('read-only');
for (let i = 0; i < 40; i++) await one.execute([{ id: `p${i}`, name: 'peek', arguments: { n: i } }]);
phase('side-effects');
for (let i = 0; i < 10; i++) {
  await one.execute([
    { id: `e${i}a`, name: 'effect', arguments: { tag: `e${i}a` } },
    { id: `p${i}`, name: 'peek', arguments: { n: i } },
    { id: `e${i}b`, name: 'effect', arguments: { tag: `e${i}b` } },
  ]);
}
phase('concurrent');
const gates = Array.from({ length: 8 }, (_, i) => gate(`s${i}`));
await Promise.all(
  gates.map((g, i) => g.execute([{ id: `c${i}`, name: 'effect', arguments: { tag: `c${i}` } }])),
);
phase('writes');
const writer = createToolgate({
  config: validateConfig({ tools: { approval: { mode: 'auto' } } }),
  roots: [root],
  journal,
  session: 'writer',
  approver: approveAll, // a deletion always asks: answered yes here
});
const write = async (id, args) => {
  const [r] = await writer.execute([{ id, name: 'write_file', arguments: args }]);
  if (!r.ok) throw new Error(`${id}: ${r.error.message}`);
};
for (let i = 0; i < 6; i++) await write(`n${i}`, { path: `w/n${i}.txt`, content: `new ${i}\n` });
for (let i = 0; i < 3; i++)
  await write(`o${i}`, { path: `w/n${i}.txt`, content: `replaced ${i}\n`, overwrite: true });
const [deleted] = await writer.execute([{ id: 'd5', name: 'delete_file', arguments: { path: 'w/n5.txt' } }]);
if (!deleted.ok) throw new Error(`d5: ${deleted.error.message}`);
await writer.close();
phase('end');
journal.close();
