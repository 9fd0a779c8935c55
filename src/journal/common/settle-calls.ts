import type { ToolResult } from '../../core/tool-result.js';
import type { Settlement } from '../journal-records.js';
import type { CallRecord } from '../journal-types.js';

/**
 * Settles each call of an incomplete batch as `decide` says (resumeSettlement, discardSettlement,
 * givenUpSettlement): a call whose committed result stands gives that result back; for every other,
 * `write` records its settlement (its result's JSON made once). Every call's result, in call order.
 */
export function settleCalls(
  calls: readonly CallRecord[],
  decide: (call: CallRecord) => Settlement,
  write: (call: CallRecord, outcome: NonNullable<Settlement>, json: string) => void,
): ToolResult[] {
  const results: ToolResult[] = [];
  for (const call of calls) {
    const outcome = decide(call);
    if (!outcome) {
      results.push(call.result as ToolResult);
      continue;
    }
    write(call, outcome, JSON.stringify(outcome.result));
    results.push(outcome.result);
  }
  return results;
}
