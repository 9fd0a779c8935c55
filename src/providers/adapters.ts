import type { ProviderKind } from '../core/conversation.js';
import { anthropicAdapter } from './anthropic.js';
import { geminiAdapter } from './gemini.js';
import { openAiChatAdapter } from './openai-chat.js';
import { openAiResponsesAdapter } from './openai-responses.js';
import type { ProviderAdapter } from './provider.js';

const adapters: Record<ProviderKind, ProviderAdapter> = {
  openai: openAiChatAdapter('openai'),
  'openai-compatible': openAiChatAdapter('openai-compatible'),
  'openai-responses': openAiResponsesAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
};

export function adapterFor(kind: ProviderKind): ProviderAdapter {
  return adapters[kind];
}

/** Where each hosted provider's key is looked for when the config names none. */
export const API_KEY_ENV: Record<ProviderKind, string> = {
  openai: 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
  'openai-compatible': 'OPENAI_API_KEY',
};
