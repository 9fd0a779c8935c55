import { randomUUID } from 'node:crypto';
import { DEFAULT_LEASE_MS } from '../journal/keep-lease.js';
import { workerId } from '../journal/process-identity.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { createToolgate } from '../toolgate.js';
import { approverFor } from './open-gate.js';
import { journalPath, openJournalOrStop } from './open-journal.js';
import { resolveSetup } from './resolve-setup.js';
import { UsageError } from './usage-error.js';

export interface WorkerOptions {
  root?: string[];
  config?: string;
  journal?: string;
  approve?: string;
  leaseSeconds?: string;
  once?: boolean;
}

/**
 * `toolgate worker` (issue #17 §2): takes over the batches whose worker died (their lease ran out)
 * and finishes them, under the rules `Toolgate.takeOver` keeps; with `--once`, until there are
 * none, then exits. Workers share the journal (PostgreSQL for several machines) and must share the
 * project's roots and config: a batch is run again where it was planned. Leases expire by time,
 * not by any event, so between claims the worker looks again every third of a lease.
 */
export async function runWorker(options: WorkerOptions, out: NodeJS.WritableStream): Promise<number> {
  const seconds = options.leaseSeconds === undefined ? DEFAULT_LEASE_MS / 1000 : Number(options.leaseSeconds);
  if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > 3600)
    throw new UsageError('--lease-seconds must be a number from 0.1 to 3600');
  const setup = resolveSetup(options);
  const journal = openJournalOrStop(journalPath(setup, options.journal));
  const lease = {
    worker: workerId(randomUUID().slice(0, 8)),
    ttlMs: seconds * 1000,
  };
  const { approver, close } = approverFor(options.approve ?? 'none', journal);
  let stopping = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    stopping = true;
    wake?.();
  };
  const signals = ['SIGTERM', 'SIGINT'] as const;
  for (const signal of signals) process.once(signal, stop);
  let taken = 0;
  try {
    while (!stopping) {
      const record = journal.claimExpiredBatch(lease);
      if (!record) {
        if (options.once) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, Math.max(50, lease.ttlMs / 3));
        });
        continue;
      }
      const gate = createToolgate({
        config: setup.config,
        roots: setup.roots,
        baseDir: setup.baseDir,
        journal,
        session: record.session,
        approver,
        lease,
        ...(setup.configFile ? { configFile: setup.configFile } : {}),
      });
      try {
        const results = await gate.takeOver(record);
        taken++;
        const unknown = results.filter((r) => r.metadata?.outcome === 'unknown').length;
        out.write(
          `${sanitizeForTerminal(`took over batch ${record.id} (session ${record.session}): ${results.length} calls, ${results.filter((r) => r.ok).length} ok, ${unknown} outcome unknown`)}\n`,
        );
      } finally {
        await gate.close();
      }
    }
  } finally {
    for (const signal of signals) process.off(signal, stop);
    close();
    journal.close();
  }
  if (options.once) out.write(`${taken} batch${taken === 1 ? '' : 'es'} taken over\n`);
  return 0;
}
