import type { ToolCall } from '../../core/tool-call.js';
import type { BeginBatchOptions, FinishedCall } from '../journal-types.js';
import { assistantMessage } from './assistant-message.js';

/** One conversation message a batch is recorded with; `json` is its content already serialized. */
export interface BatchMessage {
  role: 'assistant' | 'tool';
  content: unknown;
  callId: string | null;
  json?: string | undefined;
}

/**
 * The messages a new batch adds to its session's conversation, in order: the assistant message
 * with its tool uses (FR-RES-01), then, for a batch recorded after it ran, one `tool` message per
 * result. Without a conversation (`messages: false`, an MCP client keeps its own), only an
 * assistant record holding what the calls do not (e.g. arguments a host injected, taken out before
 * validation), and only when there is such a thing.
 */
export function batchMessages(
  options: BeginBatchOptions,
  text: string | null,
  calls: readonly ToolCall[],
  finished?: readonly FinishedCall[],
  resultJson?: readonly string[],
): BatchMessage[] {
  if (options.messages === false && !options.assistant) return [];
  const out: BatchMessage[] = [
    { role: 'assistant', content: assistantMessage(options, text, calls), callId: null },
  ];
  if (options.messages === false) return out;
  for (const [i, f] of (finished ?? []).entries())
    out.push({ role: 'tool', content: f.result, callId: f.result.id, json: resultJson?.[i] });
  return out;
}
