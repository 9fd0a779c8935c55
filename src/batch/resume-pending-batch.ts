import type { ToolResult } from '../core/tool-result.js';
import type { BatchHistory } from '../journal/roles/batch-history.js';
import type { Planning } from './batch-planner.js';
import type { ExecuteBatchOptions } from './execute-batch-options.js';
import { planEntries } from './plan-entries.js';
import type { BatchRunner, RunJournal } from './run-batch.js';
import { runPickedUpBatch } from './run-picked-up-batch.js';

/**
 * Answers a batch that was waiting for approval when toolgate stopped (recorded in the journal):
 * nothing of it ran, so it is planned again under today's policy, asked, and run.
 */
export async function resumePendingBatch(
  planning: Planning,
  runner: BatchRunner,
  journal: (RunJournal & Pick<BatchHistory, 'batch'>) | undefined,
  batchId: string,
  options: ExecuteBatchOptions,
): Promise<ToolResult[]> {
  const record = journal?.batch(batchId);
  if (!journal || !record) throw new Error(`no batch ${batchId} in the journal`);
  if (record.status !== 'awaiting_approval' || record.calls.some((c) => c.status === 'running' || c.result)) {
    throw new Error(
      `batch ${batchId} is not waiting for approval (status ${record.status}); use resume or discard`,
    );
  }
  // This worker takes the batch over first: never while another one holds it.
  const lease = runner.lease;
  if (lease && !journal.claimExpiredBatch(lease, batchId)) {
    const held = journal.batch(batchId)?.lease;
    throw new Error(
      `batch ${batchId} is held by worker ${held?.worker ?? '(unknown)'}${held ? ` until ${new Date(held.expiresAt).toISOString()}` : ''}; answer it there, or wait for its lease to run out`,
    );
  }
  const calls = record.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
  const setUps = planning.setUps(calls);
  if (setUps) await setUps;
  const planned = planning.plan(calls);
  journal.replan(batchId, planEntries(planned));
  return await runPickedUpBatch(runner, journal, batchId, planned, options);
}
