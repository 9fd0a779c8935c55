import type { PlannedCall } from '../core/planned-call.js';
import type { ToolResult } from '../core/tool-result.js';
import { startBatchTrace } from '../telemetry/start-batch-trace.js';
import type { ExecuteBatchOptions } from './execute-batch-options.js';
import { type BatchRunner, type RunJournal, runBatch } from './run-batch.js';

/** runBatch for a batch picked up from the journal (answered or taken over), traced like a new one. */
export async function runPickedUpBatch(
  runner: BatchRunner,
  journal: RunJournal,
  batchId: string,
  planned: PlannedCall[],
  options: ExecuteBatchOptions,
  /** Calls whose result the journal already holds: not recorded again. */
  recorded?: ReadonlySet<number>,
  /** Calls whose result is known already: they keep it, whatever happens to the batch. */
  settled?: ReadonlySet<number>,
): Promise<ToolResult[]> {
  const tracing = startBatchTrace(options, runner.session, planned.length, runner.logger !== undefined);
  const results = await runBatch(runner, planned, options, tracing, { journal, batchId, recorded, settled });
  tracing?.end(results);
  return results;
}
