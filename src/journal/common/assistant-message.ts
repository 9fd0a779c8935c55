import type { ToolCall } from '../../core/tool-call.js';
import type { BeginBatchOptions } from '../journal-types.js';

/**
 * FR-RES-01: the assistant message a batch is recorded with, its tool uses in call order (with
 * whatever more of the message the caller keeps: provider, model, the raw turn).
 */
export function assistantMessage(
  options: BeginBatchOptions,
  text: string | null,
  calls: readonly ToolCall[],
): Record<string, unknown> {
  return {
    ...options.assistant,
    text,
    toolUses: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
  };
}
