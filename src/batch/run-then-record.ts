import { errorResult } from '../core/make-result.js';
import type { PlannedCall } from '../core/planned-call.js';
import type { ToolCall } from '../core/tool-call.js';
import type { ToolResult } from '../core/tool-result.js';
import { journalStatus } from '../journal/journal-observer.js';
import type { BeginBatchOptions } from '../journal/journal-types.js';
import type { BatchLog } from '../journal/roles/batch-log.js';
import type { BatchObserver } from '../run/execute-batch.js';
import type { BatchTrace } from '../telemetry/batch-trace.js';
import type { ExecuteBatchOptions } from './execute-batch-options.js';
import { type BatchRunner, runBatch } from './run-batch.js';
import { withinLimit } from './within-limit.js';

/**
 * Read-only batches: run, then journal the whole batch in one commit before anyone sees a result
 * (no fsync: running them again after a crash is harmless). If the journal cannot record it,
 * the results are withheld: every result handed out is journaled.
 */
export async function runThenRecord(
  runner: BatchRunner,
  journal: Pick<BatchLog, 'recordFinishedBatch'>,
  calls: readonly ToolCall[],
  planned: PlannedCall[],
  options: ExecuteBatchOptions,
  record: BeginBatchOptions,
  tracing: BatchTrace | undefined,
): Promise<ToolResult[]> {
  // Each call's own times, as the journal records them for a call that ran under its observer.
  const startedAt: number[] = [];
  const finishedAt: number[] = [];
  const observer: BatchObserver = {
    onCallStart: (p) => {
      startedAt[p.index] = Date.now();
      return options.observer?.onCallStart?.(p);
    },
    onCallResult: (result, p) => {
      finishedAt[p.index] = Date.now();
      return options.observer?.onCallResult?.(result, p);
    },
  };
  const results = await runBatch(runner, planned, { ...options, observer }, tracing);
  const now = Date.now();
  try {
    journal.recordFinishedBatch(
      runner.session,
      withinLimit(calls, planned),
      results.map((result, i) => {
        const start = startedAt[i];
        return {
          result,
          status: journalStatus(result, planned[i] as PlannedCall),
          ...(start !== undefined ? { startedAt: start } : {}),
          finishedAt: finishedAt[i] ?? now,
        };
      }),
      record,
    );
  } catch (error) {
    return results.map((r) =>
      errorResult(
        r.id,
        r.name,
        'Internal',
        `result withheld: ${(error as Error).message} (the call was read-only; nothing changed)`,
      ),
    );
  }
  return results;
}
