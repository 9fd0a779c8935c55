import type { ConversationMessage } from '../core/conversation.js';

/** Used when the model's context size is unknown (FR-REG-04b). */
export const FALLBACK_CAPACITY_BYTES = 64 * 1024;
const SAFETY_MARGIN_TOKENS = 1024;

/** A rough token estimate: four characters per token, as FR-REG-04b's byte conversion assumes. */
export function estimateTokens(messages: readonly ConversationMessage[], system = ''): number {
  let chars = system.length;
  for (const m of messages) {
    if (m.role === 'user') chars += m.text.length;
    else if (m.role === 'assistant') {
      chars += m.text.length;
      for (const c of m.toolCalls) chars += c.name.length + c.arguments.length;
    } else for (const r of m.results) chars += r.content.length;
  }
  return Math.ceil(chars / 4);
}

/**
 * FR-REG-04b: bytes of tool output the model can still take, computed conservatively:
 * (context − current estimate − response reserve − safety margin) × 4, never below zero;
 * the fixed 64 KB cap when the context size is not known.
 */
export function availableCapacityBytes(options: {
  contextTokens: number | undefined;
  messages: readonly ConversationMessage[];
  system?: string;
  responseReserveTokens: number;
}): number {
  if (!options.contextTokens) return FALLBACK_CAPACITY_BYTES;
  const free =
    options.contextTokens -
    estimateTokens(options.messages, options.system) -
    options.responseReserveTokens -
    SAFETY_MARGIN_TOKENS;
  return Math.max(0, free) * 4;
}

/** Each call of a batch gets an equal share, with room left for an error message. */
export function perCallLimit(capacityBytes: number, calls: number): number {
  return Math.max(512, Math.floor(capacityBytes / Math.max(1, calls)));
}
