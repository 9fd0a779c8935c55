import { randomUUID } from 'node:crypto';
import { errorResult } from '../core/make-result.js';
import type { PlannedCall } from '../core/planned-call.js';
import type { ToolCall } from '../core/tool-call.js';
import type { ToolResult } from '../core/tool-result.js';
import { recordableAfter } from '../journal/journal-observer.js';
import type { BeginBatchOptions } from '../journal/journal-types.js';
import type { BatchTrace } from '../telemetry/batch-trace.js';
import { startBatchTrace } from '../telemetry/start-batch-trace.js';
import type { Planning } from './batch-planner.js';
import type { ExecuteBatchOptions } from './execute-batch-options.js';
import { notExecuted } from './not-executed.js';
import { planEntries } from './plan-entries.js';
import { type BatchRunner, type RunJournal, runBatch } from './run-batch.js';
import { runThenRecord } from './run-then-record.js';
import { withinLimit } from './within-limit.js';

/** The journal a new batch is recorded in, and whether the conversation's messages go with it. */
export interface NewBatchJournal {
  journal: RunJournal;
  /** false: the journal keeps the batch's calls and results but no conversation messages. */
  conversation: boolean;
}

/**
 * A new batch, traced: planned, recorded in the journal before anything runs (a read-only one
 * after it ran, in one commit), asked, run. Exactly one result per call, in call order.
 */
export async function executeNewBatch(
  planning: Planning,
  runner: BatchRunner,
  journaling: NewBatchJournal | undefined,
  calls: readonly ToolCall[],
  options: ExecuteBatchOptions,
): Promise<ToolResult[]> {
  const tracing = startBatchTrace(options, runner.session, calls.length, runner.logger !== undefined);
  if (!tracing) return await planAndRun(planning, runner, journaling, calls, options, undefined);
  const results = await planAndRun(planning, runner, journaling, calls, options, tracing);
  tracing.end(results);
  return results;
}

async function planAndRun(
  planning: Planning,
  runner: BatchRunner,
  journaling: NewBatchJournal | undefined,
  calls: readonly ToolCall[],
  options: ExecuteBatchOptions,
  tracing: BatchTrace | undefined,
): Promise<ToolResult[]> {
  const setUps = planning.setUps(calls);
  if (setUps) await setUps;
  let planned: PlannedCall[];
  try {
    // pure: nothing runs or changes while planning
    planned = tracing
      ? tracing.step(
          'toolgate.plan',
          () => planning.plan(calls),
          (p) => ({
            'toolgate.plan.asks': p.filter((c) => c.disposition.kind === 'needs_approval').length,
          }),
        )
      : planning.plan(calls);
  } catch (error) {
    return calls.map((c) =>
      errorResult(c.id, c.name, 'Internal', `not executed: planning failed (${(error as Error).message})`),
    );
  }
  if (!journaling) return await runBatch(runner, planned, options, tracing); // `return await`: fewer turns than returning the promise
  const journal = journaling.journal;
  const lease = runner.lease;
  const record: BeginBatchOptions = {
    ...(options.assistantText ? { assistantText: options.assistantText } : {}),
    ...(options.assistant ? { assistant: options.assistant } : {}),
    ...(options.batchId ? { batchId: options.batchId } : {}),
    ...(journaling.conversation ? {} : { messages: false }),
    plan: planEntries(planned),
    ...(lease ? { lease } : {}),
  };
  if (options.batchId === undefined && recordableAfter(planned)) {
    return await runThenRecord(runner, journal, calls, planned, options, record, tracing);
  }
  // The id is chosen here, so a write whose outcome is unknown can be settled by id afterwards.
  let batchId = record.batchId ?? randomUUID();
  // Nothing to ask and the first call runs: it starts right after this commit, so its `running`
  // rides in it (one commit fewer before a side effect).
  const running =
    journal.beginsRunning &&
    planned[0]?.disposition.kind === 'execute' &&
    planned.every((p) => p.disposition.kind !== 'needs_approval')
      ? 0
      : undefined;
  try {
    batchId = journal.beginBatch(runner.session, withinLimit(calls, planned), {
      ...record,
      batchId,
      ...(running === undefined ? {} : { running }),
    });
  } catch (error) {
    // Nothing may run that the journal did not record first; and if the write did land after
    // all, it is settled now, so no worker runs later what the model is told did not run.
    return notExecuted(journal, batchId, lease?.worker, planned, error, undefined, true);
  }
  return await runBatch(runner, planned, options, tracing, { journal, batchId, runningAtBegin: running });
}
