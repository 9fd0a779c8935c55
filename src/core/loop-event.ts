import type { AssistantToolCall, ConversationMessage } from './conversation.js';
import type { PlannedCall } from './planned-call.js';
import type { StreamEvent } from './stream-event.js';
import type { ToolEvent } from './tool-event.js';

/** What the agent loop reports while a user turn runs (TUI, `toolgate run`, library callers). */
export type LoopEvent =
  | { type: 'request'; iteration: number }
  | { type: 'stream'; event: StreamEvent }
  | { type: 'assistant'; message: Extract<ConversationMessage, { role: 'assistant' }> }
  /** The batch as planned, before approval: every call's disposition (TUI progress, FR-TUI-02). */
  | { type: 'planned'; planned: readonly PlannedCall[] }
  | { type: 'tool'; event: ToolEvent }
  | { type: 'results'; message: Extract<ConversationMessage, { role: 'tool_results' }> }
  /** parse_only: these calls wait for results from a person (FR-MODE-02, FR-TUI-04). */
  | { type: 'pending'; calls: readonly AssistantToolCall[] }
  | { type: 'retry'; attempt: number; reason: string };
