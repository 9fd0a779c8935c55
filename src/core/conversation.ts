import type { ToolResult } from './tool-result.js';

/** The provider wire formats toolgate speaks (issue #7; shared/research/providers.md). */
export type ProviderKind = 'openai' | 'openai-responses' | 'anthropic' | 'gemini' | 'openai-compatible';
export const PROVIDER_KINDS: readonly ProviderKind[] = [
  'openai',
  'openai-responses',
  'anthropic',
  'gemini',
  'openai-compatible',
];

/** A tool call as the model sent it: `arguments` is the exact text, echoed back byte for byte. */
export interface AssistantToolCall {
  id: string;
  name: string;
  arguments: string;
  /** Set when the call cannot run as sent (its JSON was cut off or never closed). */
  problem?: string;
}

/**
 * One message of a conversation, provider-neutral. An assistant message keeps `raw`, the
 * provider's own form of the turn (content blocks, output items, parts with signatures), so it
 * is echoed verbatim to the provider that produced it (providers.md §0.6).
 */
export type ConversationMessage =
  | { role: 'user'; text: string }
  | {
      role: 'assistant';
      text: string;
      toolCalls: AssistantToolCall[];
      provider: ProviderKind;
      raw?: unknown;
    }
  | { role: 'tool_results'; results: ToolResult[] };
