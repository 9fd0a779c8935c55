// run_command of allowed commands (nobody asked), one call per batch, no journal: this build
// against an earlier one, each in its own process, alternated, medians over the rounds.
//   git worktree add /tmp/before <commit> && cp -al node_modules /tmp/before/ && (cd /tmp/before && npm run build)
//   npm run build && BEFORE=/tmp/before node bench/before-after.mjs
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (process.argv[2] === 'child') {
  const [, , , lib, backend, command, n] = process.argv;
  const { createToolgate, validateConfig } = await import(lib);
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-ba-')));
  writeFileSync(path.join(root, 'a.txt'), 'a\n');
  const gate = createToolgate({
    config: validateConfig({
      tools: {
        approval: { denylist: [] },
        run_command: { allow: ['true', 'ls', 'wc'] },
        shell: { backend },
      },
    }),
    roots: [root],
  });
  const once = async (i) => {
    const [r] = await gate.execute([{ id: `c${i}`, name: 'run_command', arguments: { command } }]);
    if (!r.ok) throw new Error(r.content);
  };
  for (let i = 0; i < 10; i++) await once(i);
  const t = performance.now();
  for (let i = 0; i < Number(n); i++) await once(i);
  console.log(((performance.now() - t) / Number(n)).toFixed(3));
  await gate.close();
  process.exit(0);
}

const before = process.env.BEFORE;
if (!before)
  throw new Error('set BEFORE to the root of an earlier checkout, built (see the top of this file)');
const libs = {
  after: path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js'),
  before: path.join(before, 'dist', 'index.js'),
};
for (const [backend, command] of [
  ['host', 'true'],
  ['host', 'ls -la | wc -l'],
  ['session', 'true'],
]) {
  const times = { after: [], before: [] };
  for (let round = 0; round < 7; round++) {
    for (const which of round % 2 ? ['before', 'after'] : ['after', 'before']) {
      const out = spawnSync(
        process.execPath,
        [fileURLToPath(import.meta.url), 'child', libs[which], backend, command, '100'],
        { encoding: 'utf8' },
      );
      if (out.status !== 0) throw new Error(out.stderr);
      times[which].push(Number(out.stdout.trim()));
    }
  }
  const a = median(times.after);
  const b = median(times.before);
  console.log(
    `| run_command \`${command.replaceAll('|', '\\|')}\` (${backend}), allowed, one call per batch, median of 7×100 | ${a.toFixed(2)} ms/call | before: ${b.toFixed(2)} ms/call | ${(a / b).toFixed(2)}× | no slower (issue #29) |`,
  );
}
