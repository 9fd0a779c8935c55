// One process of the worker-throughput bench (bench/pg-workers.js): runs batches on a PostgreSQL
// journal for a while, then prints how many it completed. Kind `read`: one read-only no-op call
// per batch (recorded after it ran, one commit); `write`: one write_file per batch (recorded
// before it runs: batch, running, result, finish).
import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { approveAll, createToolgate, defineTool, validateConfig } from '../dist/index.js';
import { PostgresJournal } from '../dist/journal/postgres/postgres-journal.js';

const [url, kind, seconds] = process.argv.slice(2);
const journal = PostgresJournal.open(url);
const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-worker-')));
const noop = defineTool({
  name: 'noop',
  description: 'nothing',
  args: z.strictObject({}),
  tier: 'read_only',
  summary: () => 'noop',
  execute: () => 'ok',
});
const gate = createToolgate({
  config: validateConfig({ tools: { approval: { mode: 'auto' } } }),
  roots: [root],
  tools: [noop],
  journal,
  approver: approveAll,
});
const end = Date.now() + Number(seconds) * 1000;
let n = 0;
while (Date.now() < end) {
  const call =
    kind === 'read'
      ? { id: `r${n}`, name: 'noop', arguments: {} }
      : {
          id: `w${n}`,
          name: 'write_file',
          arguments: { path: `f${n % 50}.txt`, content: `${n}\n`, overwrite: true },
        };
  const [r] = await gate.execute([call]);
  if (!r?.ok) throw new Error(r?.content);
  n++;
}
process.stdout.write(`${n}\n`);
await gate.close();
journal.close();
