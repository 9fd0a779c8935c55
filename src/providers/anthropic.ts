import type { ConversationMessage } from '../core/conversation.js';
import { exportDefinitions } from '../core/export-definitions.js';
import type { StreamEvent } from '../core/stream-event.js';
import {
  argumentsObject,
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

type Block = Record<string, unknown>;

/**
 * Messages for Anthropic (§3): the assistant content echoed verbatim (text, thinking with its
 * signature, tool_use), then ONE user message that begins with a tool_result per tool_use, in
 * call order; any user text after results joins that message, after them.
 */
export function anthropicMessages(messages: readonly ConversationMessage[]): unknown[] {
  const out: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  const add = (role: 'user' | 'assistant', blocks: Block[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'user') add('user', [{ type: 'text', text: m.text }]);
    else if (m.role === 'assistant') {
      const blocks =
        m.provider === 'anthropic' && Array.isArray(m.raw)
          ? (m.raw as Block[])
          : [
              ...(m.text ? [{ type: 'text', text: m.text }] : []),
              ...m.toolCalls.map((c) => ({
                type: 'tool_use',
                id: c.id,
                name: c.name,
                input: argumentsObject(c.arguments),
              })),
            ];
      add('assistant', blocks);
    } else {
      add(
        'user',
        m.results.map((r) => ({
          type: 'tool_result',
          tool_use_id: r.id,
          content: r.content,
          ...(r.ok ? {} : { is_error: true }),
        })),
      );
    }
  }
  return out;
}

export const anthropicAdapter: ProviderAdapter = {
  kind: 'anthropic',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  buildRequest(turn: TurnRequest, connection: Connection): HttpRequest {
    const body: Record<string, unknown> = {
      model: turn.model,
      max_tokens: turn.maxTokens,
      stream: true,
      messages: anthropicMessages(turn.messages),
    };
    if (turn.system) body.system = turn.system;
    if (turn.tools.length > 0) {
      body.tools = exportDefinitions(turn.tools, 'anthropic');
    }
    return {
      url: joinUrl(connection.baseUrl, '/messages'),
      headers: {
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        ...(connection.apiKey ? { 'x-api-key': connection.apiKey } : {}),
      },
      body,
    };
  },
  createDecoder: () => new AnthropicDecoder(),
};

interface OpenBlock {
  block: Block;
  json: string;
}

class AnthropicDecoder implements StreamDecoder {
  #complete = false;
  readonly #blocks = new Map<number, OpenBlock>();

  push(event: SseEvent): StreamEvent[] {
    const data = parseEventJson(event);
    const type = String(data.type ?? event.event ?? '');
    const out: StreamEvent[] = [];
    const index = typeof data.index === 'number' ? data.index : -1;
    switch (type) {
      case 'message_start': {
        const usage = asObject(asObject(data.message).usage);
        if (typeof usage.input_tokens === 'number')
          out.push({ type: 'usage', inputTokens: usage.input_tokens });
        break;
      }
      case 'content_block_start': {
        const block = asObject(data.content_block);
        if (block.type === 'text')
          this.#blocks.set(index, { block: { type: 'text', text: String(block.text ?? '') }, json: '' });
        else if (block.type === 'thinking') {
          this.#blocks.set(index, {
            block: {
              type: 'thinking',
              thinking: String(block.thinking ?? ''),
              signature: String(block.signature ?? ''),
            },
            json: '',
          });
        } else if (block.type === 'redacted_thinking')
          this.#blocks.set(index, { block: { ...block }, json: '' });
        else if (block.type === 'tool_use') {
          this.#blocks.set(index, {
            block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
            json: '',
          });
          out.push({
            type: 'tool_call_start',
            key: `b${index}`,
            ...(typeof block.id === 'string' && block.id ? { id: block.id } : {}),
            ...(typeof block.name === 'string' && block.name ? { name: block.name } : {}),
          });
        }
        // Other block types (server tools and their results) are not ours to run or echo.
        break;
      }
      case 'content_block_delta': {
        const open = this.#blocks.get(index);
        const delta = asObject(data.delta);
        if (!open) break;
        if (delta.type === 'text_delta' && typeof delta.text === 'string') {
          open.block.text = `${String(open.block.text)}${delta.text}`;
          out.push({ type: 'text_delta', text: delta.text });
        } else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
          open.block.thinking = `${String(open.block.thinking)}${delta.thinking}`;
          out.push({ type: 'reasoning_delta', text: delta.thinking });
        } else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
          open.block.signature = `${String(open.block.signature ?? '')}${delta.signature}`;
        } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          open.json += delta.partial_json;
          if (delta.partial_json)
            out.push({ type: 'tool_call_delta', key: `b${index}`, arguments: delta.partial_json });
        }
        break;
      }
      case 'content_block_stop': {
        const open = this.#blocks.get(index);
        if (open?.block.type === 'tool_use') {
          open.block.input = argumentsObject(open.json);
          out.push({ type: 'tool_call_end', key: `b${index}` });
        }
        break;
      }
      case 'message_delta': {
        const delta = asObject(data.delta);
        const usage = asObject(data.usage);
        if (typeof usage.output_tokens === 'number')
          out.push({ type: 'usage', outputTokens: usage.output_tokens });
        if (typeof delta.stop_reason === 'string') out.push({ type: 'finish', reason: delta.stop_reason });
        break;
      }
      case 'message_stop':
        this.#complete = true;
        break;
      case 'error': {
        const error = asObject(data.error);
        throw new ProviderError(
          `the provider reported an error mid-stream: ${String(error.type ?? 'error')}: ${String(error.message ?? event.data)}`,
        );
      }
    }
    return out;
  }

  end() {
    const raw = [...this.#blocks.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, open]) => open.block)
      // The API refuses empty text blocks in a request.
      .filter((block) => !(block.type === 'text' && block.text === ''));
    return { complete: this.#complete, raw };
  }
}
