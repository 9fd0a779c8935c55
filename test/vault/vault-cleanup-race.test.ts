// A failed vault_copyto removes its temporary tree. Another process that can write the workspace
// (a background command) sees the temporary name and may swap a directory in it for a link to
// anything while the removal runs: nothing outside the tree may ever be deleted (review finding:
// fs.rm by path followed such a link and deleted files outside the workspace).
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load-config.js';
import { approveAll } from '../../src/core/confirmation.js';
import { removeOwnTemp } from '../../src/sandbox/remove-entry.js';
import { createToolgate } from '../../src/toolgate.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Waits for a temporary tree in `dir` holding `latch` (so it is fully made), then swaps its `a`
 * for a link to `victim` and back as fast as it can until the tree is gone; again until told to stop.
 */
const SWAPPER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { dir, victim, held, latch } = workerData;
let stop = false, swaps = 0, target;
parentPort.on('message', () => { stop = true; });
const loop = () => {
  for (let i = 0; i < 200 && !stop; i++) {
    try {
      if (!target) {
        const temp = fs.readdirSync(dir).find((n) => n.includes('.toolgate-'));
        if (temp && fs.existsSync(dir + '/' + temp + '/' + latch)) target = dir + '/' + temp;
        continue;
      }
      if (!fs.existsSync(target)) { target = undefined; continue; }
      const a = target + '/a';
      fs.renameSync(a, held);
      try {
        fs.symlinkSync(victim, a);
        swaps++;
        // Held a moment, as long as a remover takes to list a directory.
        const until = process.hrtime.bigint() + 200000n;
        while (process.hrtime.bigint() < until);
        fs.unlinkSync(a);
      } finally {
        fs.renameSync(held, a);
      }
    } catch {}
  }
  if (stop) parentPort.postMessage(swaps); else setImmediate(loop);
};
loop();
`;

function victimDir(base: string): string {
  const victim = path.join(base, 'victim');
  mkdirSync(victim);
  for (let i = 0; i < 50; i++) writeFileSync(path.join(victim, `v${i}`), 'keep\n');
  return victim;
}

async function underSwaps(
  dir: string,
  victim: string,
  latch: string,
  run: () => Promise<void>,
): Promise<number> {
  const worker = new Worker(SWAPPER, {
    eval: true,
    workerData: { dir, victim, latch, held: path.join(path.dirname(dir), `held-${Math.random()}`) },
  });
  try {
    await run();
  } finally {
    worker.postMessage('stop');
  }
  return await new Promise<number>((resolve) => worker.once('message', resolve));
}

describe('vault_copyto clean-up under a racing swapper (review finding, HIGH)', () => {
  it('removeOwnTemp never deletes through a link swapped in at any moment (200 removals)', async () => {
    const base = makeTempDir('toolgate-race-');
    const victim = victimDir(base);
    const dir = path.join(base, 'ws');
    mkdirSync(dir);
    const failures: string[] = [];
    let swaps = 0;
    swaps += await underSwaps(dir, victim, 'ready', async () => {
      for (let round = 0; round < 200; round++) {
        // Made under another name, then renamed: the swapper never sees it half made.
        const making = path.join(dir, `making-${round}`);
        const temp = path.join(dir, `.copy.toolgate-${round}.tmp`);
        mkdirSync(path.join(making, 'a'), { recursive: true });
        for (let f = 0; f < 20; f++) writeFileSync(path.join(making, 'a', `f${f}`), 'x');
        writeFileSync(path.join(making, 'ready'), '');
        renameSync(making, temp);
        // Give the swapper a moment to latch on, as a real racer polling the workspace would.
        await new Promise((resolve) => setTimeout(resolve, 1));
        await removeOwnTemp(temp).catch((error: NodeJS.ErrnoException) => failures.push(error.code ?? ''));
      }
    });
    expect(swaps).toBeGreaterThan(0); // the race was really run
    expect(readdirSync(victim)).toHaveLength(50);
    // Against a swapper this fast a removal may give up (ENOTEMPTY after 20 listings), never more.
    expect(failures.filter((code) => code !== 'ENOTEMPTY')).toEqual([]);
    expect(failures.length).toBeLessThan(20);
  });

  it('a tree copy that fails on max_files cleans up without touching a victim, under the swapper', async () => {
    const base = makeTempDir('toolgate-race-');
    const victim = victimDir(base);
    const root = path.join(base, 'ws');
    const vault = path.join(base, 'vault');
    mkdirSync(root);
    for (const [sub, n] of [
      ['a', 20],
      ['z', 40],
    ] as const) {
      mkdirSync(path.join(vault, 'data', sub), { recursive: true });
      for (let f = 0; f < n; f++) writeFileSync(path.join(vault, 'data', sub, `f${f}`), 'x');
    }
    const gate = createToolgate({
      config: validateConfig({ tools: { vault: { roots: [vault], max_files: 25 } } }),
      roots: [root],
      approver: approveAll,
    });
    const swaps = await underSwaps(root, victim, 'a/f19', async () => {
      for (let round = 0; round < 40; round++) {
        const [r] = await gate.execute([
          { id: `c${round}`, name: 'vault_copyto', arguments: { source: 'data', destination: 'copy' } },
        ]);
        // Fails on max_files (or on what the swapper did to the copy meanwhile): it never succeeds.
        expect(r?.ok).toBe(false);
      }
    });
    expect(swaps).toBeGreaterThan(0);
    expect(readdirSync(victim)).toHaveLength(50);
  });
});
