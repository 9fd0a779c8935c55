import type { ToolgateConfig } from '../config/config-schema.js';
import type { PlannedCall } from '../core/planned-call.js';
import type { ToolResult } from '../core/tool-result.js';
import { journalObserver } from '../journal/journal-observer.js';
import type { Lease } from '../journal/journal-types.js';
import { keepLease } from '../journal/keep-lease.js';
import type { BatchLeases } from '../journal/roles/batch-leases.js';
import type { BatchLog } from '../journal/roles/batch-log.js';
import type { BatchRecovery } from '../journal/roles/batch-recovery.js';
import type { RateCounter } from '../policy/rate-limiter.js';
import { executeBatch } from '../run/execute-batch.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { BatchEvents } from '../telemetry/batch-events.js';
import type { BatchTrace } from '../telemetry/batch-trace.js';
import type { EventLogger } from '../telemetry/event-log.js';
import { type ApprovalStep, approveCalls } from './approve-calls.js';
import type { ExecuteBatchOptions } from './execute-batch-options.js';
import { abandonBatch } from './give-up-batch.js';
import { notExecuted } from './not-executed.js';

/** What running a planned batch needs from its gate: where, with which limits, by whom, and who asks. */
export interface BatchRunner {
  readonly session: string;
  readonly sandbox: Sandbox;
  readonly rates: RateCounter;
  readonly tools: Pick<ToolgateConfig['tools'], 'timeouts' | 'output' | 'allow_parallel'>;
  readonly logger: EventLogger | undefined;
  /** This gate's worker lease (issue #17 §2), or undefined when leases are off. */
  readonly lease: Lease | undefined;
  readonly approval: ApprovalStep;
}

/** The journal as a journaled batch's run uses it: log each step, keep its lease, settle it when given up. */
export type RunJournal = BatchLog & BatchLeases & BatchRecovery;

/** A batch the journal records as it runs (begun, resumed or taken over). */
export interface JournaledRun {
  journal: RunJournal;
  batchId: string;
  /** Calls whose result the journal already holds (a batch taken over): not recorded again. */
  recorded?: ReadonlySet<number> | undefined;
  /** The call beginBatch recorded running already (see executeNewBatch). */
  runningAtBegin?: number | undefined;
  /** Calls of a batch taken over whose result is known already (see takeOverBatch). */
  settled?: ReadonlySet<number> | undefined;
}

/**
 * Asks what must be asked, then runs the batch: exactly one result per call, in call order. A
 * journaled batch is leased to this worker while it runs, each call recorded as it starts and ends.
 */
export async function runBatch(
  runner: BatchRunner,
  planned: PlannedCall[],
  options: ExecuteBatchOptions,
  tracing: BatchTrace | undefined,
  journaled?: JournaledRun,
): Promise<ToolResult[]> {
  const stopRenewing =
    journaled && runner.lease ? keepLease(journaled.journal, journaled.batchId, runner.lease) : undefined;
  try {
    return await runLeased(runner, planned, options, tracing, journaled);
  } finally {
    stopRenewing?.();
  }
}

async function runLeased(
  runner: BatchRunner,
  planned: PlannedCall[],
  options: ExecuteBatchOptions,
  tracing: BatchTrace | undefined,
  journaled: JournaledRun | undefined,
): Promise<ToolResult[]> {
  const tools = runner.tools;
  const lease = runner.lease;
  const journal = journaled?.journal;
  const batchId = journaled?.batchId;
  const asks = planned.some((p) => p.disposition.kind === 'needs_approval');
  // A journal that fails before anything starts: the calls are reported, and recorded, as not run.
  const notRun = (j: JournaledRun, error: unknown) =>
    notExecuted(j.journal, j.batchId, lease?.worker, planned, error, j.settled);
  if (asks && journaled) {
    // What a person is asked about survives a power loss too (an fsync is nothing beside a person).
    try {
      await journaled.journal.sync();
    } catch (error) {
      return notRun(journaled, error);
    }
  }
  // Nothing to ask: no detour through the approver (and no extra turn of the event loop).
  const approved = asks ? await approveCalls(runner.approval, planned, options, tracing, batchId) : planned;
  if (journaled && asks) {
    try {
      const yes = approved.filter(
        (p, i) => planned[i]?.disposition.kind === 'needs_approval' && p.disposition.kind === 'execute',
      );
      journaled.journal.markApproved(
        journaled.batchId,
        yes.map((p) => p.index),
        lease,
      );
    } catch (error) {
      return notRun(journaled, error);
    }
  }
  const recorder = journaled
    ? journalObserver(
        journaled.journal,
        journaled.batchId,
        options.observer,
        lease,
        journaled.recorded,
        runner.sandbox.pendingSyncs,
        approved.length,
        journaled.runningAtBegin,
      )
    : undefined;
  const observer = recorder ?? options.observer;
  const events = BatchEvents.for(tracing, runner.logger, {
    session: runner.session,
    ...(batchId !== undefined ? { batch_id: batchId } : {}),
  });
  const results = await executeBatch(approved, {
    sandbox: runner.sandbox,
    defaultTimeoutMs: tools.timeouts.default_seconds * 1000,
    outputLimit: Math.min(tools.output.max_bytes, options.outputLimit ?? Number.POSITIVE_INFINITY),
    outputMaxLines: tools.output.max_lines,
    allowParallel: tools.allow_parallel,
    rates: runner.rates,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onEvent ? { emit: options.onEvent } : {}),
    ...(observer ? { observer } : {}),
    ...(events ? { events } : {}),
  });
  if (journal && batchId !== undefined && recorder?.halted && !recorder.allRecorded)
    return abandonBatch(journal, batchId, lease?.worker, results);
  if (journal && batchId !== undefined && !recorder?.finished) {
    try {
      journal.finishBatch(batchId, lease);
    } catch {
      // Every result is already committed; recovery settles the status.
    }
  }
  return results;
}
