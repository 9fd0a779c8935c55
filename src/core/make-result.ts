import type { ToolErrorType } from './tool-error.js';
import type { ToolResult } from './tool-result.js';

/** An error result whose content is the clear message for the model: `<tool> failed: …`. */
export function errorResult(
  id: string,
  name: string,
  type: ToolErrorType,
  message: string,
  latencyMs = 0,
  metadata?: Record<string, unknown>,
): ToolResult {
  return {
    id,
    name,
    ok: false,
    content: `${name} failed: ${message}`,
    error: { type, message },
    latencyMs,
    ...(metadata ? { metadata } : {}),
  };
}
