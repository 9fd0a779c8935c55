import type { Denial } from '../core/denial.js';
import type { PlannedCall } from '../core/planned-call.js';
import type { ToolCall } from '../core/tool-call.js';

/**
 * The calls as the journal keeps them: arguments the planner refused as over max_tool_args_bytes
 * are not run, and not stored either (a 60 MB argument would otherwise land in the journal twice).
 */
export function withinLimit(
  calls: readonly ToolCall[],
  planned: readonly PlannedCall[],
): readonly ToolCall[] {
  let out: ToolCall[] | undefined;
  for (const p of planned) {
    const denial =
      p.disposition.kind === 'resolved'
        ? (p.disposition.result.metadata?.denial as Denial | undefined)
        : undefined;
    if (denial?.rule !== 'tools.max_tool_args_bytes') continue;
    out ??= [...calls];
    out[p.index] = { ...p.call, arguments: { omitted: `${denial.reason}; not stored, not run` } };
  }
  return out ?? calls;
}
