import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { groupGone, markerGone } from '../../../test/helpers/process-group.js';
import { makeTempDir } from '../../../test/helpers/workspace.js';
import { validateConfig } from '../../config/load-config.js';
import { approveAll } from '../../core/confirmation.js';
import { createToolgate } from '../../toolgate.js';

/**
 * Seed 001 Property 27 (timeout) and Property 48 (cancel) for run_command: real `sh -c` processes,
 * through the whole pipeline; afterwards nothing of the command's process group may still run.
 * Timeouts and abort delays are kept to tens of milliseconds so 100 runs each stay a few seconds.
 */
const root = makeTempDir('toolgate-pg-prop-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** grace_ms is short so a command that ignores SIGTERM gets its SIGKILL soon after. */
const gate = () =>
  createToolgate({
    config: validateConfig({ tools: { approval: { denylist: [] }, run_command: { grace_ms: 20 } } }),
    roots: [root],
    approver: approveAll,
  });

describe('run_command: the process group is stopped (seed 001)', () => {
  it('Property 27: a command running past its timeout is stopped, its whole process group with it, and the result is a Timeout error', async () => {
    const g = gate();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 5, max: 30 }),
        fc.constantFrom(
          'sleep S', // the shell waits on one child
          "sh -c 'sleep S & sleep S'; sleep S", // grandchildren, one in the background
          "trap '' TERM; sleep S", // ignores SIGTERM: needs the SIGKILL after the grace period
          'while :; do :; done; : S', // busy, no child at all
        ),
        async (timeoutMs, body) => {
          // Every process of the command carries this in its command line (a long, unique sleep);
          // a timeout this short may stop the shell before it has started anything.
          const marker = `86${String(run++).padStart(5, '0')}.5`;
          const started = performance.now();
          const [r] = await g.execute([
            {
              id: '1',
              name: 'run_command',
              arguments: { command: body.replaceAll('S', marker), timeout_ms: timeoutMs },
            },
          ]);
          const elapsed = performance.now() - started;
          expect(r?.error?.type).toBe('Timeout');
          expect(r?.content).toContain(`ran longer than ${timeoutMs} ms`);
          expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 1);
          expect(elapsed).toBeLessThan(timeoutMs + 3_000);
          expect(await markerGone(marker)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('Property 48: cancelling a running command ends it and its process group, with a Cancelled result', async () => {
    const g = gate();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 20 }),
        fc.constantFrom("sh -c 'sleep 30 & sleep 30'; sleep 30", "trap '' TERM; sleep 30"),
        async (afterMs, body) => {
          // The abort comes once the command has started (its pid is out), plus a little.
          const marker = `cancel${run++}`;
          const controller = new AbortController();
          let pgid = 0;
          let out = '';
          const [r] = await g.execute(
            [{ id: '1', name: 'run_command', arguments: { command: `echo ${marker} $$; ${body}` } }],
            {
              signal: controller.signal,
              onEvent: (e) => {
                if (e.type !== 'stdout' || pgid) return;
                out += e.chunk;
                const pid = new RegExp(`${marker} (\\d+)\n`).exec(out)?.[1];
                if (!pid) return;
                pgid = Number(pid);
                setTimeout(() => controller.abort(), afterMs);
              },
            },
          );
          expect(r?.error?.type).toBe('Cancelled');
          expect(pgid).toBeGreaterThan(1);
          expect(await groupGone(pgid)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});
