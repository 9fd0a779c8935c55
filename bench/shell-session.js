// run_command per call with `[tools.shell] backend = "session"` (one persistent bash) against the
// default host backend (a new `bash -c` per call) and against Node spawning `bash -c true` itself,
// interleaved in one run (issue #16 §10).

import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { approveAll, createToolgate, validateConfig } from '../dist/index.js';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function gate(backend) {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-shell-')));
  return createToolgate({
    config: validateConfig({
      tools: { approval: { denylist: [] }, run_command: { allow: ['true'] }, shell: { backend } },
    }),
    roots: [root],
    approver: approveAll,
  });
}

/** ms per call over `n` calls of `true`, one call per batch. */
async function perCall(g, n) {
  const t = performance.now();
  for (let i = 0; i < n; i++) {
    const [r] = await g.execute([{ id: `c${i}`, name: 'run_command', arguments: { command: 'true' } }]);
    if (!r?.ok) throw new Error(`run_command failed: ${r?.content}`);
  }
  return (performance.now() - t) / n;
}

async function spawnTrue(n) {
  const t = performance.now();
  for (let i = 0; i < n; i++)
    await new Promise((resolve, reject) =>
      spawn('/bin/bash', ['-c', 'true'], { stdio: 'ignore' }).once('close', resolve).once('error', reject),
    );
  return (performance.now() - t) / n;
}

export async function shellSession({ rounds = 9, n = 100 } = {}) {
  const host = gate('host');
  const session = gate('session');
  await perCall(host, 10);
  await perCall(session, 10);
  const times = { host: [], session: [], spawn: [] };
  for (let r = 0; r < rounds; r++) {
    times.host.push(await perCall(host, n));
    times.session.push(await perCall(session, n));
    times.spawn.push(await spawnTrue(n));
  }
  await host.close();
  await session.close();
  const [h, s, b] = [median(times.host), median(times.session), median(times.spawn)];
  return [
    [
      `run_command \`true\`, one call per batch, no journal: session shell vs host shell, median of ${rounds}×${n}`,
      `${s.toFixed(2)} ms/call`,
      `host ${h.toFixed(2)} ms/call; Node spawning bash -c true ${b.toFixed(2)} ms`,
      `${(s / h).toFixed(2)}× host`,
      '—',
    ],
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await shellSession()) console.log(`| ${row.join(' | ')} |`);
}
