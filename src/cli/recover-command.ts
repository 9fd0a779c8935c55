import { createInterface } from 'node:readline/promises';
import { heldMessage, holderOf } from '../journal/batch-holder.js';
import { DEFAULT_LEASE_MS } from '../journal/keep-lease.js';
import { thisProcess } from '../journal/process-identity.js';
import { createToolgate } from '../toolgate.js';
import { findBatchId } from './find-batch.js';
import { approverFor } from './open-gate.js';
import { journalPath, openExistingJournal } from './open-journal.js';
import { describeBatch, describeHolder, listed } from './recover-list.js';
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

/**
 * `toolgate recover` (seed 000 FR-RES-04c/05): lists every incomplete batch, and who holds those
 * not free to recover; per free batch, resume with the results it has, discard them, or take it over. Nothing is ever run again, except a batch that was still waiting
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
      if (batch.status !== 'open' && batch.status !== 'awaiting_approval') {
        throw new UsageError(
          `batch ${target} is already ${batch.status}: only incomplete batches can be resumed or discarded (see \`toolgate journal show ${target}\`)`,
        );
      }
      // A batch whose process is known to have ended here is free at once, whatever its lease
      // said; one a live process or another machine's unexpired lease holds is not (issue #31 §3).
      const held = heldMessage(target, holderOf(batch), Boolean(options.takeOver));
      if (held) throw new UsageError(held);
      if (options.takeOver) {
        // Finished here, as a worker would (issue #17 §2): what never started runs, a side effect
        // that was running is outcome unknown. Claimed first: never while another worker holds it.
        const lease = { worker: thisProcess(), ttlMs: DEFAULT_LEASE_MS };
        const claimed = journal.claimExpiredBatch(lease, target);
        if (!claimed) {
          // Taken or settled by someone else between the look and the claim: say by whom.
          const now = journal.batch(target);
          throw new UsageError(
            (now && heldMessage(target, holderOf(now), true)) ??
              `see \`toolgate journal show ${target}\`: batch ${target} was taken over or settled by another process just now, so it was not taken over here`,
          );
        }
        const { approver, close } = approverFor(options.approve ?? 'ask', journal);
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
    // Every incomplete batch is listed: a free one to act on, the others with who holds them.
    const batches = listed(journal.incompleteBatches());
    if (options.json) {
      out.write(
        `${JSON.stringify(
          batches.map((b) => b.summary),
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    if (batches.length === 0) {
      out.write('No incomplete batches.\n');
      return 0;
    }
    const terminal = process.stdin.isTTY ? { input: process.stdin, output: process.stdout } : undefined;
    for (const { batch, holder } of batches) {
      out.write(`${describeBatch(batch)}\n`);
      if (holder.kind !== 'free') {
        out.write(`${describeHolder(batch.id, holder)}\n`);
        continue;
      }
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
    if (!terminal && batches.some((b) => b.holder.kind === 'free'))
      out.write(
        '\nAct with: toolgate recover --resume ID | --discard ID | --take-over ID (add --approve all to run a batch that was waiting for approval)\n',
      );
    return 0;
  } finally {
    journal.close();
  }
}
