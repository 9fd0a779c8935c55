import { errorResult } from '../core/make-result.js';
import type { PlannedCall } from '../core/planned-call.js';
import { isRepeatable } from '../core/tier.js';
import type { ToolResult } from '../core/tool-result.js';
import type { BatchRecord } from '../journal/journal-types.js';
import type { Planning } from './batch-planner.js';
import type { ExecuteBatchOptions } from './execute-batch-options.js';
import { planEntries } from './plan-entries.js';
import type { BatchRunner, RunJournal } from './run-batch.js';
import { runPickedUpBatch } from './run-picked-up-batch.js';

/**
 * Finishes a batch this worker took over from one that died (claimExpiredBatch; issue #17 §2),
 * under the rules recovery keeps. A committed result stays as it is. A call that was running when
 * its worker died may have had its effect: with side effects its outcome is unknown and it is
 * never run again; a read-only one runs again. A call that never started is planned again under
 * today's policy (asking where it must) and runs. The batch is then complete.
 */
export async function takeOverBatch(
  planning: Planning,
  runner: BatchRunner,
  journal: RunJournal | undefined,
  record: BatchRecord,
  options: ExecuteBatchOptions,
): Promise<ToolResult[]> {
  if (!journal) throw new Error('taking a batch over needs the journal it is in');
  const lease = runner.lease;
  if (lease && record.lease?.worker !== lease.worker)
    throw new Error(`batch ${record.id} is not leased to this worker: claim it first (claimExpiredBatch)`);
  const calls = record.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
  const setUps = planning.setUps(calls);
  if (setUps) await setUps;
  const recorded = new Set<number>();
  /** Recorded, or with an outcome unknown: whatever happens to the batch now, their result stands. */
  const settled = new Set<number>();
  const planned = planning.plan(calls).map((p): PlannedCall => {
    const before = record.calls[p.index];
    if (before?.result) {
      recorded.add(p.index);
      settled.add(p.index);
      return { ...p, disposition: { kind: 'resolved', result: before.result } };
    }
    if (before?.status === 'running' && !(p.tool && isRepeatable(p.tool.tier))) {
      const message =
        'outcome unknown: the worker running this call stopped before it finished; it was not run again (check its effects before retrying)';
      settled.add(p.index);
      return {
        ...p,
        disposition: {
          kind: 'resolved',
          result: errorResult(p.call.id, p.call.name, 'ExecutionFailed', message, 0, {
            outcome: 'unknown',
          }),
        },
      };
    }
    return p;
  });
  journal.replan(
    record.id,
    planEntries(planned.filter((p) => !recorded.has(p.index) && p.disposition.kind !== 'resolved')),
  );
  return await runPickedUpBatch(runner, journal, record.id, planned, options, recorded, settled);
}
