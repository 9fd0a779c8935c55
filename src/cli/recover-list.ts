import { type BatchHolder, holderOf } from '../journal/batch-holder.js';
import type { BatchRecord } from '../journal/journal.js';
import { describeProcess, parseProcessId } from '../journal/process-identity.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';

/** What `toolgate recover --json` prints for a batch (issue #31 §3: held ones too, never hidden). */
export interface ListedBatch {
  id: string;
  session: string;
  calls: { id: string; name: string; status: string }[];
  /** interrupted: free to recover now; running: its toolgate still runs here; held: another machine's lease. */
  state: 'interrupted' | 'running' | 'held';
  /** Who holds it and until when (ISO time), unless it is free. */
  holder?: { worker: string; pid?: number; host?: string; until?: string; take_over: boolean };
}

/** Every incomplete batch with who holds it, judged once, at one moment. */
export function listed(
  batches: BatchRecord[],
): { batch: BatchRecord; holder: BatchHolder; summary: ListedBatch }[] {
  const now = Date.now();
  return batches.map((batch) => {
    const holder = holderOf(batch, now);
    return { batch, holder, summary: summary(batch, holder) };
  });
}

function summary(batch: BatchRecord, holder: BatchHolder): ListedBatch {
  const base = {
    id: batch.id,
    session: batch.session,
    calls: batch.calls.map((c) => ({ id: c.id, name: c.name, status: c.status })),
  };
  if (holder.kind === 'free') return { ...base, state: 'interrupted' };
  const p = parseProcessId(holder.worker);
  const until = holder.until === undefined ? {} : { until: new Date(holder.until).toISOString() };
  return {
    ...base,
    state: holder.kind,
    holder: {
      worker: holder.worker,
      ...(p ? { pid: p.pid, host: p.host } : {}),
      ...until,
      take_over: holder.kind === 'running' && holder.takeOver,
    },
  };
}

export function describeBatch(batch: BatchRecord): string {
  const lines = batch.calls.map(
    (c) =>
      `    ${c.index + 1}. ${c.name} [${c.status}]${c.result ? (c.result.ok ? ' ok' : ` ${c.result.error?.type}`) : ''}`,
  );
  const when = new Date(batch.createdAt).toISOString();
  return sanitizeForTerminal(
    `batch ${batch.id} (session ${batch.session}, ${when}, ${batch.status})\n${lines.join('\n')}`,
  );
}

/** The line under a batch that is not free: who holds it, until when, and what to do. */
export function describeHolder(batchId: string, holder: BatchHolder): string {
  switch (holder.kind) {
    case 'free':
      return '';
    case 'running': {
      const until = holder.until === undefined ? '' : `, lease until ${new Date(holder.until).toISOString()}`;
      const act = holder.takeOver
        ? `it no longer holds its lease: \`toolgate recover --take-over ${batchId}\` finishes it here`
        : `answer it there, or stop it (kill ${holder.pid}) to recover it here`;
      return sanitizeForTerminal(
        `  still running in toolgate ${describeProcess(holder.worker)}${until}: ${act}`,
      );
    }
    case 'held':
      return sanitizeForTerminal(
        `  held by ${describeProcess(holder.worker)} until ${new Date(holder.until).toISOString()} (its lease): recover it after then if that worker has ended`,
      );
  }
}
