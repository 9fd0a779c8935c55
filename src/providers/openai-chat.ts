import type { ConversationMessage, ProviderKind } from '../core/conversation.js';
import { exportDefinitions } from '../core/export-definitions.js';
import type { StreamEvent } from '../core/stream-event.js';
import {
  asObject,
  type Connection,
  type HttpRequest,
  joinUrl,
  type ProviderAdapter,
  ProviderError,
  parseEventJson,
  type StreamDecoder,
  type TurnRequest,
} from './provider.js';
import type { SseEvent } from './sse-parser.js';

/** Chat Completions messages; tool messages follow their assistant message in call order (§1). */
export function chatMessages(
  system: string | undefined,
  messages: readonly ConversationMessage[],
): unknown[] {
  const out: unknown[] = system ? [{ role: 'system', content: system }] : [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.text });
    else if (m.role === 'assistant') {
      out.push({
        role: 'assistant',
        content: m.text === '' ? null : m.text,
        ...(m.toolCalls.length > 0
          ? {
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: 'function',
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : {}),
      });
    } else {
      for (const r of m.results) out.push({ role: 'tool', tool_call_id: r.id, content: r.content });
    }
  }
  return out;
}

/**
 * OpenAI Chat Completions, and the OpenAI-compatible local servers (Ollama, llama.cpp, vLLM,
 * LM Studio) with every quirk of providers.md §6: missing or reused `index`, empty ids, whole
 * arguments, no `arguments` key, repeated names, finish reasons that lie, usage anywhere.
 */
export function openAiChatAdapter(
  kind: Extract<ProviderKind, 'openai' | 'openai-compatible'>,
): ProviderAdapter {
  const compatible = kind === 'openai-compatible';
  return {
    kind,
    defaultBaseUrl: compatible ? 'http://127.0.0.1:11434/v1' : 'https://api.openai.com/v1',
    buildRequest(turn: TurnRequest, connection: Connection): HttpRequest {
      const body: Record<string, unknown> = {
        model: turn.model,
        stream: true,
        stream_options: { include_usage: true },
        messages: chatMessages(turn.system, turn.messages),
      };
      if (turn.tools.length > 0) {
        body.tools = exportDefinitions(turn.tools, 'openai-chat');
        body.tool_choice = 'auto';
      }
      if (compatible) body.max_tokens = turn.maxTokens;
      else body.max_completion_tokens = turn.maxTokens;
      return {
        url: joinUrl(connection.baseUrl, '/chat/completions'),
        headers: {
          'content-type': 'application/json',
          ...(connection.apiKey ? { authorization: `Bearer ${connection.apiKey}` } : {}),
        },
        body,
      };
    },
    createDecoder: () => new ChatDecoder(compatible),
  };
}

class ChatDecoder implements StreamDecoder {
  readonly #compatible: boolean;
  #done = false;
  #finished = false;
  #lastKey: string | undefined;
  #unindexed = 0;

  constructor(compatible: boolean) {
    this.#compatible = compatible;
  }

  push(event: SseEvent): StreamEvent[] {
    if (event.data.trim() === '[DONE]') {
      this.#done = true;
      return [];
    }
    const chunk = parseEventJson(event);
    if (event.event === 'error' || chunk.error) {
      const error = asObject(chunk.error);
      throw new ProviderError(
        `the provider reported an error mid-stream: ${String(error.message ?? event.data)}`,
      );
    }
    const out: StreamEvent[] = [];
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = asObject(choices[0]);
    const delta = asObject(choice.delta);
    if (typeof delta.content === 'string' && delta.content !== '')
      out.push({ type: 'text_delta', text: delta.content });
    for (const side of ['reasoning_content', 'reasoning']) {
      const text = delta[side];
      if (typeof text === 'string' && text !== '') out.push({ type: 'reasoning_delta', text });
    }
    const toolCalls = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
    for (const raw of toolCalls) {
      const tc = asObject(raw);
      const fn = asObject(tc.function);
      // llama.cpp once put the id inside `function`; empty strings mean "absent".
      const id =
        typeof tc.id === 'string' && tc.id ? tc.id : typeof fn.id === 'string' && fn.id ? fn.id : undefined;
      const name = typeof fn.name === 'string' && fn.name ? fn.name : undefined;
      const args = typeof fn.arguments === 'string' ? fn.arguments : '';
      let key: string;
      if (typeof tc.index === 'number') key = `i${tc.index}`;
      else if (id || name || this.#lastKey === undefined) key = `n${this.#unindexed++}`;
      else key = this.#lastKey;
      this.#lastKey = key;
      if (id || name) {
        out.push({
          type: 'tool_call_start',
          key,
          ...(id ? { id } : {}),
          ...(name ? { name } : {}),
          arguments: args,
        });
      } else if (args) out.push({ type: 'tool_call_delta', key, arguments: args });
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason) {
      this.#finished = true;
      out.push({ type: 'finish', reason: choice.finish_reason });
    }
    const usage = asObject(chunk.usage);
    if (typeof usage.prompt_tokens === 'number' || typeof usage.completion_tokens === 'number') {
      out.push({
        type: 'usage',
        ...(typeof usage.prompt_tokens === 'number' ? { inputTokens: usage.prompt_tokens } : {}),
        ...(typeof usage.completion_tokens === 'number' ? { outputTokens: usage.completion_tokens } : {}),
      });
    }
    return out;
  }

  end() {
    // Local servers may skip `[DONE]` after a clean finish chunk (§6.9); OpenAI itself never does.
    return { complete: this.#done || (this.#compatible && this.#finished) };
  }
}
