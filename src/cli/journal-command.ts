import type { BatchRecord } from '../journal/journal.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import { findBatchId } from './find-batch.js';
import { journalPath, openExistingJournal } from './open-journal.js';
import { resolveSetup } from './resolve-setup.js';
import { UsageError } from './usage-error.js';

interface JournalOptions {
  root?: string[];
  config?: string;
  journal?: string;
  json?: boolean;
  limit?: string;
}

const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : '-');

/** `toolgate journal list`: recent batches, newest first. */
export function runJournalList(options: JournalOptions, out: NodeJS.WritableStream): number {
  const limit = Number(options.limit ?? 20);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive whole number');
  const file = journalPath(resolveSetup(options), options.journal);
  const journal = openExistingJournal(file);
  if (!journal) {
    if (options.json) out.write('[]\n');
    else out.write(`No journal at ${file} yet: nothing has been journaled there.\n`);
    return 0;
  }
  try {
    const batches = journal.recentBatches(limit);
    if (options.json) {
      out.write(`${JSON.stringify(batches, null, 2)}\n`);
      return 0;
    }
    if (batches.length === 0) out.write('The journal has no batches yet.\n');
    for (const b of batches) {
      out.write(
        `${b.id}  ${iso(b.createdAt)}  ${b.status.padEnd(17)}  ${b.calls} call(s), ${b.failed} failed  session ${sanitizeForTerminal(b.session)}\n`,
      );
    }
    return 0;
  } finally {
    journal.close();
  }
}

/** `toolgate journal show ID`: every call with its decision (and deciding rule), result and timing. */
export function runJournalShow(id: string, options: JournalOptions, out: NodeJS.WritableStream): number {
  const file = journalPath(resolveSetup(options), options.journal);
  const journal = openExistingJournal(file);
  if (!journal) throw new UsageError(`no journal at ${file} yet, so no batch "${id}"`);
  try {
    const batch = journal.batch(findBatchId(journal, id, 'toolgate journal list'));
    if (!batch) throw new UsageError(`no batch "${id}" in ${journal.location}`);
    if (options.json) {
      out.write(`${JSON.stringify(batch, null, 2)}\n`);
      return 0;
    }
    out.write(render(batch));
    return 0;
  } finally {
    journal.close();
  }
}

function render(batch: BatchRecord): string {
  const lines = [
    `batch ${batch.id}  session ${batch.session}  ${batch.status}  ${iso(batch.createdAt)} → ${iso(batch.finishedAt)}`,
  ];
  for (const c of batch.calls) {
    const took = c.startedAt && c.finishedAt ? ` ${c.finishedAt - c.startedAt} ms` : '';
    lines.push(`  ${c.index + 1}. ${c.name} (id ${c.id}) [${c.status}]${took}`);
    lines.push(`     args: ${JSON.stringify(c.arguments).slice(0, 300)}`);
    if (c.decision)
      lines.push(
        `     decision: ${c.decision.action} by ${c.decision.rule} in ${c.decision.file} (${c.decision.reason})`,
      );
    if (c.result) {
      const text = c.result.ok ? c.result.content : `${c.result.error?.type}: ${c.result.error?.message}`;
      lines.push(`     result: ${c.result.ok ? 'ok' : 'error'} ${text.replace(/\s+/g, ' ').slice(0, 300)}`);
    }
  }
  return `${sanitizeForTerminal(lines.join('\n'))}\n`;
}
