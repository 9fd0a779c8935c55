import type { ToolErrorType } from '../core/tool-error.js';
import type { ToolResult } from '../core/tool-result.js';
import { toolMetrics } from '../telemetry/tool-metrics.js';
import { sanitizeForTerminal } from './sanitize-terminal.js';
import { cutToBytes, type OutputLimits, truncateOutput } from './truncate-output.js';

const DISPLAY_MAX_BYTES = 2_000;

function isJsonObjectText(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== '{') return false;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** A short, terminal-safe line or two for a person (the model gets `content`). */
export function displayText(text: string): string {
  return sanitizeForTerminal(cutToBytes(text, DISPLAY_MAX_BYTES));
}

export function successResult(
  id: string,
  name: string,
  output: {
    content: string;
    display?: string;
    metadata?: Record<string, unknown>;
    allowTruncation?: boolean;
  },
  limit: OutputLimits,
  latencyMs: number,
): ToolResult {
  const cut =
    output.allowTruncation === false
      ? { text: output.content, truncated: false, omittedBytes: 0 }
      : truncateOutput(output.content, limit.maxBytes, limit.maxLines);
  const metadata = cut.truncated ? { ...output.metadata, truncated: true } : output.metadata;
  if (cut.truncated) toolMetrics().truncated.add(cut.omittedBytes, { 'gen_ai.tool.name': name });
  const result: ToolResult = {
    id,
    name,
    ok: true,
    content: cut.text,
    display: output.display === undefined ? displayText(cut.text) : displayText(output.display),
    error: null,
    latencyMs,
  };
  if (metadata) result.metadata = metadata; // last, as the contract's JSON shows it
  return result;
}

/**
 * An error result. An ExecutionFailed message that is a JSON object passes through verbatim, with no
 * prefix and no truncation marker (seed 000 FR-ERR-JSON-TOOL-01/02); anything else is
 * `<tool> failed: <message>`, truncated within the limits.
 */
export function failureResult(
  id: string,
  name: string,
  type: ToolErrorType,
  message: string,
  limit: OutputLimits,
  latencyMs: number,
  metadata?: Record<string, unknown>,
): ToolResult {
  const passthrough = type === 'ExecutionFailed' && isJsonObjectText(message);
  const cut = (text: string) => truncateOutput(text, limit.maxBytes, limit.maxLines).text;
  const content = passthrough ? message : cut(`${name} failed: ${message}`);
  return {
    id,
    name,
    ok: false,
    content,
    display: displayText(passthrough ? message : `${name} failed: ${message}`),
    error: { type, message: passthrough ? message : cut(message) },
    latencyMs,
    ...(metadata ? { metadata } : {}),
  };
}
