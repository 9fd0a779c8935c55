// Runs inside `unshare -rm` with a 4 MiB tmpfs mounted at argv[2] (the root); the journal lives in
// argv[3], outside it. Prints one JSON line per step: what happened and the mode in force.
import { unlinkSync } from 'node:fs';
import path from 'node:path';
import { createToolgate, SqliteJournal, validateConfig } from '../../dist/index.js';

const [root, journalDir] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const gateWith = (auto, file) =>
  createToolgate({
    config: validateConfig({
      tools: {
        approval: { mode: 'auto' },
        max_tool_args_bytes: 16 * 1024 * 1024,
        governance: { auto: { enabled: true, window_seconds: 1, quiet_seconds: 1, ...auto } },
        edit: { max_file_bytes: 16 * 1024 * 1024 },
      },
    }),
    roots: [root],
    journal: SqliteJournal.open(path.join(journalDir, file)),
  });
const step = async (gate, name, calls) => {
  const results = await gate.execute(calls);
  const now = gate.governanceMode();
  console.log(
    JSON.stringify({
      step: name,
      results: results.map((r) => r.error?.type ?? 'ok'),
      mode: now.mode,
      reason: now.record?.reason ?? '',
    }),
  );
};
const write = (p, bytes) => [
  { id: 'w', name: 'write_file', arguments: { path: p, content: 'x'.repeat(bytes), overwrite: true } },
];
const read = [{ id: 'r', name: 'list_directory', arguments: { path: '.' } }];

const disk = gateWith({ min_free_bytes: 1024 * 1024 }, 'disk.db');
await step(disk, 'fill', write('big.bin', 3_500_000));
await step(disk, 'read-when-full', read);
await step(disk, 'write-when-degraded', write('small.txt', 10));
unlinkSync(path.join(root, 'big.bin')); // the operator frees the disk
await sleep(1100);
await step(disk, 'after-freeing', read);
await sleep(1100);
await step(disk, 'after-quiet', read);
await step(disk, 'write-again', write('small.txt', 10));

const full = gateWith({ min_free_bytes: 1 }, 'enospc.db');
await step(full, 'enospc', write('huge.bin', 5_000_000));
await step(full, 'write-after-enospc', write('small2.txt', 10));
