import { randomUUID } from 'node:crypto';
import type { ToolResult } from '../core/tool-result.js';
import type { Toolgate } from '../toolgate.js';

/**
 * One call from another agent framework, through the whole pipeline (policy, sandbox, approvals,
 * journal, output caps) as a batch of one. The framework's call id is kept when it has one.
 */
export async function runOneCall(
  gate: Toolgate,
  name: string,
  input: unknown,
  options: { callId?: string; signal?: AbortSignal } = {},
): Promise<ToolResult> {
  const args =
    typeof input === 'string'
      ? input
      : input && typeof input === 'object' && !Array.isArray(input)
        ? (input as Record<string, unknown>)
        : {};
  const [result] = await gate.execute(
    [{ id: options.callId ?? `call_${randomUUID()}`, name, arguments: args }],
    options.signal ? { signal: options.signal } : {},
  );
  if (!result) throw new Error(`toolgate returned no result for ${name}`);
  return result;
}
