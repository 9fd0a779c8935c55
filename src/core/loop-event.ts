import type { AssistantToolCall, ConversationMessage } from './conversation.js';
import type { StreamEvent } from './stream-event.js';
import type { ToolEvent } from './tool-event.js';

/** What the agent loop reports while a user turn runs (TUI, `toolgate run`, library callers). */
export type LoopEvent =
  | { type: 'request'; iteration: number }
  | { type: 'stream'; event: StreamEvent }
  | { type: 'assistant'; message: Extract<ConversationMessage, { role: 'assistant' }> }
  | { type: 'tool'; event: ToolEvent }
  | { type: 'results'; message: Extract<ConversationMessage, { role: 'tool_results' }> }
  /** parse_only: these calls wait for results from a person (FR-MODE-02, FR-TUI-04). */
  | { type: 'pending'; calls: readonly AssistantToolCall[] }
  | { type: 'retry'; attempt: number; reason: string };
