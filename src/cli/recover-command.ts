import { createInterface } from 'node:readline/promises';
import type { BatchRecord } from '../journal/journal.js';
import { DEFAULT_LEASE_MS } from '../journal/keep-lease.js';
import { ownerAlive, thisProcess, workerGone } from '../journal/process-identity.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { createToolgate } from '../toolgate.js';
import { findBatchId } from './find-batch.js';
import { approverFor } from './open-gate.js';
import { journalPath, openExistingJournal } from './open-journal.js';
import { resolveSetup } from './resolve-setup.js';
import { UsageError } from './usage-error.js';

export interface RecoverOptions {
  root?: string[];
  config?: string;
  journal?: string;
  json?: boolean;
  resume?: string;
  discard?: string;
  takeOver?: string;
  approve?: string;
}

type Out = NodeJS.WritableStream;

function summary(batch: BatchRecord) {
  return {
    id: batch.id,
    session: batch.session,
    calls: batch.calls.map((c) => ({ id: c.id, name: c.name, status: c.status })),
  };
}

/** A batch whose lease another worker still holds is running there (issue #17 §2), not interrupted. */
function heldElsewhere(batch: BatchRecord): boolean {
  return (
    batch.lease !== undefined &&
    batch.lease.expiresAt > Date.now() &&
    batch.lease.worker !== thisProcess() &&
    !workerGone(batch.lease.worker)
  );
}

function describe(batch: BatchRecord): string {
  const lines = batch.calls.map(
    (c) =>
      `    ${c.index + 1}. ${c.name} [${c.status}]${c.result ? (c.result.ok ? ' ok' : ` ${c.result.error?.type}`) : ''}`,
  );
  const when = new Date(batch.createdAt).toISOString();
  return sanitizeForTerminal(
    `batch ${batch.id} (session ${batch.session}, ${when}, ${batch.status})\n${lines.join('\n')}`,
  );
}

/**
 * `toolgate recover` (seed 000 FR-RES-04c/05): lists incomplete batches; per batch, resume with the
 * results it has or discard them. Nothing is ever run again, except a batch that was still waiting
 * for approval (none of it ran): resuming that one asks (or takes --approve) and runs what is approved.
 */
export async function runRecover(options: RecoverOptions, out: Out): Promise<number> {
  if ([options.resume, options.discard, options.takeOver].filter(Boolean).length > 1)
    throw new UsageError('use one of --resume, --discard and --take-over');
  const setup = resolveSetup(options);
  const file = journalPath(setup, options.journal);
  const journal = openExistingJournal(file);
  const typed = options.resume ?? options.discard ?? options.takeOver;
  if (!journal) {
    if (typed) throw new UsageError(`no journal at ${file} yet, so no batch "${typed}" to recover`);
    out.write(options.json ? '[]\n' : `No incomplete batches (no journal at ${file} yet).\n`);
    return 0;
  }
  try {
    if (typed) {
      const target = findBatchId(journal, typed, 'toolgate recover');
      const batch = journal.batch(target);
      if (!batch) throw new UsageError(`no batch "${typed}" in ${journal.location}`);
      if (heldElsewhere(batch)) {
        throw new UsageError(
          `batch ${target} is held by worker ${batch.lease?.worker} until ${new Date(batch.lease?.expiresAt ?? 0).toISOString()}: it is running there, not interrupted; wait for its lease to run out if that worker is gone`,
        );
      }
      // A leased batch is settled by its lease: one that ran out may be taken over even if its
      // process still exists (stalled), which then starts nothing more of it.
      if (ownerAlive(batch.owner) && !(options.takeOver && batch.lease)) {
        throw new UsageError(
          `batch ${target} belongs to a toolgate that is still running (pid ${batch.owner?.split(':')[1]}): it is waiting, not interrupted; answer it there, or stop that process first`,
        );
      }
      if (batch.status !== 'open' && batch.status !== 'awaiting_approval') {
        throw new UsageError(
          `batch ${target} is already ${batch.status}: only incomplete batches can be resumed or discarded (see \`toolgate journal show ${target}\`)`,
        );
      }
      if (options.takeOver) {
        // Finished here, as a worker would (issue #17 §2): what never started runs, a side effect
        // that was running is outcome unknown. Claimed first: never while another worker holds it.
        const { approver, close } = approverFor(options.approve ?? 'ask', journal);
        const lease = { worker: thisProcess(), ttlMs: DEFAULT_LEASE_MS };
        const claimed = journal.claimExpiredBatch(lease, target);
        if (!claimed)
          throw new UsageError(`batch ${target} could not be taken over (another worker holds it)`);
        const gate = createToolgate({
          config: setup.config,
          roots: setup.roots,
          baseDir: setup.baseDir,
          journal,
          session: claimed.session,
          approver,
          lease,
          ...(setup.configFile ? { configFile: setup.configFile } : {}),
        });
        try {
          out.write(`${JSON.stringify(await gate.takeOver(claimed), null, 2)}\n`);
          return 0;
        } finally {
          close();
          await gate.close();
        }
      }
      if (options.discard) {
        const results = journal.discardBatch(target);
        out.write(`${JSON.stringify(results, null, 2)}\n`);
        return 0;
      }
      if (
        batch.status === 'awaiting_approval' &&
        !batch.calls.some((c) => c.status === 'running' || c.result)
      ) {
        const { approver, close } = approverFor(options.approve ?? 'ask', journal);
        const gate = createToolgate({
          config: setup.config,
          roots: setup.roots,
          baseDir: setup.baseDir,
          journal,
          session: batch.session,
          approver,
          ...(setup.configFile ? { configFile: setup.configFile } : {}),
        });
        try {
          const results = await gate.resumePending(target);
          out.write(`${JSON.stringify(results, null, 2)}\n`);
          return 0;
        } finally {
          close();
          await gate.close(); // files its calls wrote are flushed before the journal closes
        }
      }
      out.write(`${JSON.stringify(journal.resumeBatch(target), null, 2)}\n`);
      return 0;
    }
    // A batch whose process is still running is waiting (for a person, or its calls), not interrupted.
    const incomplete = journal.incompleteBatches().filter((b) => !ownerAlive(b.owner) && !heldElsewhere(b));
    if (options.json) {
      out.write(`${JSON.stringify(incomplete.map(summary), null, 2)}\n`);
      return 0;
    }
    if (incomplete.length === 0) {
      out.write('No incomplete batches.\n');
      return 0;
    }
    const terminal = process.stdin.isTTY ? { input: process.stdin, output: process.stdout } : undefined;
    for (const batch of incomplete) {
      out.write(`${describe(batch)}\n`);
      if (!terminal) continue;
      const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: false });
      const answer = (
        await rl.question('  [r]esume with the results it has, [d]iscard its results, or [s]kip? ')
      )
        .trim()
        .toLowerCase();
      rl.close();
      if (answer === 'r' || answer === 'resume')
        out.write(`  resumed: ${journal.resumeBatch(batch.id).length} result(s)\n`);
      else if (answer === 'd' || answer === 'discard')
        out.write(`  discarded: ${journal.discardBatch(batch.id).length} result(s)\n`);
    }
    if (!terminal)
      out.write(
        '\nAct with: toolgate recover --resume ID | --discard ID (add --approve all to run a batch that was waiting for approval)\n',
      );
    return 0;
  } finally {
    journal.close();
  }
}
