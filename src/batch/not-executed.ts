import { errorResult } from '../core/make-result.js';
import type { PlannedCall } from '../core/planned-call.js';
import type { ToolResult } from '../core/tool-result.js';
import { JournalError } from '../journal/journal-error.js';
import { abandonBatch, type GiveUpJournal } from './give-up-batch.js';

/**
 * Nothing of the batch ran (the journal could not record it, make it durable before asking, or
 * record the answers): every call is told so, and the journal is made to agree, so that no
 * recovery asks again and runs what the model was told did not run.
 */
export function notExecuted(
  journal: GiveUpJournal,
  batchId: string,
  worker: string | undefined,
  planned: readonly PlannedCall[],
  error: unknown,
  /** Calls of a batch taken over whose result is known already: they keep it (see takeOverBatch). */
  settled?: ReadonlySet<number>,
  /** The failed write was the batch's first (beginBatch). */
  firstWrite = false,
): ToolResult[] {
  const results = planned.map((p) =>
    settled?.has(p.index) && p.disposition.kind === 'resolved'
      ? p.disposition.result
      : errorResult(p.call.id, p.call.name, 'Internal', `not executed: ${(error as Error).message}`),
  );
  // A write whose outcome is unknown (a server that did not answer) may still land later.
  return abandonBatch(
    journal,
    batchId,
    worker,
    results,
    error instanceof JournalError && error.outcomeUnknown,
    firstWrite,
  );
}
