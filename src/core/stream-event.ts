/**
 * The one normalized event stream every provider adapter produces (issue #7). Tool-call events
 * carry the provider's stream key (index, item id, block index, part order) as `key`; the
 * accumulator turns them into whole calls.
 */
export type StreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'reasoning_delta'; text: string }
  | { type: 'tool_call_start'; key: string; id?: string; name?: string; arguments?: string }
  | { type: 'tool_call_delta'; key: string; arguments: string }
  /** The call is closed; `arguments` is the full text when the provider restates it. */
  | { type: 'tool_call_end'; key: string; arguments?: string }
  | { type: 'usage'; inputTokens?: number; outputTokens?: number }
  | { type: 'finish'; reason: string };

/** Why a model turn ended, normalized: `truncated` means the output hit its token limit. */
export type FinishKind = 'stop' | 'tool_calls' | 'truncated' | 'refused' | 'other';
