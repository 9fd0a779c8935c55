import type { BatchRecord, Journal } from '../journal/journal.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import { redactSecrets } from '../output/redact-secrets.js';
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
  olderThan?: string;
  since?: string;
  format?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** `30d`, `12h`, `90m` → milliseconds; anything else is a usage error naming the forms. */
export function parseAge(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)([dhm])$/.exec(text.trim());
  if (!m) throw new UsageError(`${flag} expects an age like 30d, 12h or 90m (got "${text}")`);
  const unit = { d: DAY_MS, h: 60 * 60 * 1000, m: 60 * 1000 }[m[2] as 'd' | 'h' | 'm'];
  const ms = Number(m[1]) * unit;
  if (!(ms <= 100 * 365 * DAY_MS)) throw new UsageError(`${flag}: ${text} is more than 100 years`);
  return ms;
}

/** `toolgate journal prune --older-than 30d` (or `[journal] retain_days`). */
export function runJournalPrune(options: JournalOptions, out: NodeJS.WritableStream): number {
  const setup = resolveSetup(options);
  const days = setup.config.journal.retain_days;
  const age = options.olderThan
    ? parseAge(options.olderThan, '--older-than')
    : days !== undefined
      ? days * DAY_MS
      : undefined;
  if (age === undefined)
    throw new UsageError('say how old with --older-than 30d, or set [journal] retain_days in toolgate.toml');
  const file = journalPath(setup, options.journal);
  const journal = openExistingJournal(file);
  if (!journal) {
    out.write(`No journal at ${file}: nothing to prune.\n`);
    return 0;
  }
  try {
    const before = Date.now() - age;
    const pruned = journal.prune(before);
    if (options.json) out.write(`${JSON.stringify({ before: iso(before), ...pruned })}\n`);
    else
      out.write(
        `Removed ${pruned.batches} batch(es) with ${pruned.calls} call(s) and ${pruned.messages} message(s) older than ${iso(before)}; open batches and batches waiting for approval are kept.\n`,
      );
    return 0;
  } finally {
    journal.close();
  }
}

/** `toolgate journal export --since 2026-11-01|7d [--format jsonl]`: one JSON line per call. */
export function runJournalExport(options: JournalOptions, out: NodeJS.WritableStream): number {
  if ((options.format ?? 'jsonl') !== 'jsonl')
    throw new UsageError(`--format: only jsonl is supported (got "${options.format}")`);
  let since = 0;
  if (options.since) {
    const parsed = /^\d+(?:\.\d+)?[dhm]$/.test(options.since.trim())
      ? Date.now() - parseAge(options.since, '--since')
      : Date.parse(options.since);
    if (!Number.isFinite(parsed))
      throw new UsageError(
        `--since expects a date (2026-11-01, ISO 8601) or an age like 7d (got "${options.since}")`,
      );
    since = parsed;
  }
  const file = journalPath(resolveSetup(options), options.journal);
  const journal = openExistingJournal(file);
  if (!journal) return 0; // nothing journaled: nothing to export
  try {
    warnUnreadable(journal, process.stderr);
    for (const call of journal.exportCalls(since)) out.write(`${JSON.stringify(call, redactStrings)}\n`);
    return 0;
  } finally {
    journal.close();
  }
}

const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : '-');

/** A SQLite journal's staged batches it cannot read (damage), if any: said on stderr by every reader. */
function unreadable(journal: Journal): { seq: number; problem: string }[] {
  return journal instanceof SqliteJournal ? journal.unreadableStaged() : [];
}

function warnUnreadable(journal: Journal, err: NodeJS.WritableStream): void {
  const rows = unreadable(journal);
  if (rows.length === 0) return;
  err.write(
    `warning: the journal holds ${rows.length} staged read-only batch(es) it cannot read (damaged), left out here: ${rows
      .slice(0, 5)
      .map((r) => `#${r.seq} (${sanitizeForTerminal(r.problem)})`)
      .join(', ')}; \`toolgate journal repair\` prints and removes them\n`,
  );
}

/** `toolgate journal repair`: prints the staged batches the journal cannot read, then removes them. */
export function runJournalRepair(options: JournalOptions, out: NodeJS.WritableStream): number {
  const file = journalPath(resolveSetup(options), options.journal);
  const journal = openExistingJournal(file);
  if (!journal) {
    out.write(`No journal at ${file}: nothing to repair.\n`);
    return 0;
  }
  try {
    const dropped = journal instanceof SqliteJournal ? journal.dropUnreadableStaged() : [];
    if (options.json) out.write(`${JSON.stringify(dropped)}\n`);
    else if (dropped.length === 0) out.write('Nothing to repair: every staged batch was readable.\n');
    else {
      for (const d of dropped) out.write(`removed staged batch #${d.seq}: ${sanitizeForTerminal(d.body)}\n`);
      out.write(`Removed ${dropped.length} unreadable staged batch(es); their text is above.\n`);
    }
    return 0;
  } finally {
    journal.close();
  }
}

/** `toolgate journal list`: recent batches, newest first. */
export function runJournalList(options: JournalOptions, out: NodeJS.WritableStream): number {
  const limit = Number(options.limit ?? 20);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100_000)
    throw new UsageError('--limit must be a whole number from 1 to 100000');
  const file = journalPath(resolveSetup(options), options.journal);
  const journal = openExistingJournal(file);
  if (!journal) {
    if (options.json) out.write('[]\n');
    else out.write(`No journal at ${file} yet: nothing has been journaled there.\n`);
    return 0;
  }
  try {
    const batches = journal.recentBatches(limit);
    warnUnreadable(journal, process.stderr);
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

/** An export leaves the machine's private journal: every string in it redacted (issue #30: redaction is for logs, telemetry and exports). */
function redactStrings(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? redactSecrets(value) : value;
}
