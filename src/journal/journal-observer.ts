import type { PlannedCall } from '../core/planned-call.js';
import type { ToolResult } from '../core/tool-result.js';
import type { BatchObserver } from '../run/execute-batch.js';
import type { Journal } from './journal.js';

const DENIALS = new Set(['Denied', 'SandboxViolation', 'LimitExceeded']);

/** Hooks one batch's execution to the journal: `running` before a call starts, its result after. */
export function journalObserver(journal: Journal, batchId: string, next?: BatchObserver): BatchObserver {
  return {
    async onCallStart(p: PlannedCall) {
      journal.markRunning(batchId, p.index);
      await next?.onCallStart?.(p);
    },
    async onCallResult(result: ToolResult, p: PlannedCall) {
      const preResolved = p.disposition.kind === 'resolved';
      const status = preResolved && result.error && DENIALS.has(result.error.type) ? 'denied' : 'done';
      journal.recordResult(batchId, p.index, result, status);
      await next?.onCallResult?.(result, p);
    },
  };
}
