import type { ConversationMessage } from '../core/conversation.js';
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

/**
 * Stateless input items (§2): the model's output items replayed in order (reasoning with its
 * encrypted content, messages, function calls with the exact argument text), then one
 * `function_call_output` per call, in call order, keyed by `call_id`.
 */
export function responsesInput(messages: readonly ConversationMessage[]): unknown[] {
  const out: unknown[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.text });
    else if (m.role === 'assistant') {
      if (m.provider === 'openai-responses' && Array.isArray(m.raw)) out.push(...m.raw);
      else {
        if (m.text) out.push({ role: 'assistant', content: m.text });
        for (const c of m.toolCalls) {
          out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments });
        }
      }
    } else {
      for (const r of m.results) out.push({ type: 'function_call_output', call_id: r.id, output: r.content });
    }
  }
  return out;
}

export const openAiResponsesAdapter: ProviderAdapter = {
  kind: 'openai-responses',
  defaultBaseUrl: 'https://api.openai.com/v1',
  buildRequest(turn: TurnRequest, connection: Connection): HttpRequest {
    const body: Record<string, unknown> = {
      model: turn.model,
      stream: true,
      // Nothing is stored at OpenAI: every turn is sent whole, reasoning included.
      store: false,
      include: ['reasoning.encrypted_content'],
      input: responsesInput(turn.messages),
      max_output_tokens: turn.maxTokens,
    };
    if (turn.system) body.instructions = turn.system;
    if (turn.tools.length > 0) {
      body.tools = exportDefinitions(turn.tools, 'openai-responses');
      body.tool_choice = 'auto';
    }
    return {
      url: joinUrl(connection.baseUrl, '/responses'),
      headers: {
        'content-type': 'application/json',
        ...(connection.apiKey ? { authorization: `Bearer ${connection.apiKey}` } : {}),
      },
      body,
    };
  },
  createDecoder: () => new ResponsesDecoder(),
};

/** An output item as it is sent back: function calls reduced to what the API reads. */
function echoItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  switch (item.type) {
    case 'function_call':
      return {
        type: 'function_call',
        call_id: item.call_id,
        name: item.name,
        arguments: item.arguments ?? '',
      };
    case 'message': {
      const { id: _id, status: _status, ...rest } = item;
      return rest;
    }
    case 'reasoning':
      return item;
    default:
      return undefined;
  }
}

class ResponsesDecoder implements StreamDecoder {
  #complete = false;
  readonly #items = new Map<number, Record<string, unknown>>();

  push(event: SseEvent): StreamEvent[] {
    const data = parseEventJson(event);
    const type = String(data.type ?? event.event ?? '');
    const out: StreamEvent[] = [];
    const outputIndex = typeof data.output_index === 'number' ? data.output_index : -1;
    const keyOf = (itemId: unknown) => (typeof itemId === 'string' && itemId ? itemId : `o${outputIndex}`);
    switch (type) {
      case 'response.output_item.added': {
        const item = asObject(data.item);
        if (item.type === 'function_call') {
          out.push({
            type: 'tool_call_start',
            key: keyOf(item.id),
            ...(typeof item.call_id === 'string' && item.call_id ? { id: item.call_id } : {}),
            ...(typeof item.name === 'string' && item.name ? { name: item.name } : {}),
            arguments: typeof item.arguments === 'string' ? item.arguments : '',
          });
        }
        break;
      }
      case 'response.function_call_arguments.delta':
        if (typeof data.delta === 'string')
          out.push({ type: 'tool_call_delta', key: keyOf(data.item_id), arguments: data.delta });
        break;
      case 'response.function_call_arguments.done':
        out.push({
          type: 'tool_call_end',
          key: keyOf(data.item_id),
          ...(typeof data.arguments === 'string' ? { arguments: data.arguments } : {}),
        });
        break;
      case 'response.output_item.done': {
        const item = asObject(data.item);
        if (outputIndex >= 0) this.#items.set(outputIndex, item);
        if (item.type === 'function_call') {
          out.push({
            type: 'tool_call_end',
            key: keyOf(item.id),
            ...(typeof item.arguments === 'string' ? { arguments: item.arguments } : {}),
          });
        }
        break;
      }
      case 'response.output_text.delta':
        if (typeof data.delta === 'string') out.push({ type: 'text_delta', text: data.delta });
        break;
      case 'response.reasoning_text.delta':
      case 'response.reasoning_summary_text.delta':
        if (typeof data.delta === 'string') out.push({ type: 'reasoning_delta', text: data.delta });
        break;
      case 'response.completed':
      case 'response.incomplete': {
        this.#complete = true;
        const response = asObject(data.response);
        const usage = asObject(response.usage);
        if (typeof usage.input_tokens === 'number' || typeof usage.output_tokens === 'number') {
          out.push({
            type: 'usage',
            ...(typeof usage.input_tokens === 'number' ? { inputTokens: usage.input_tokens } : {}),
            ...(typeof usage.output_tokens === 'number' ? { outputTokens: usage.output_tokens } : {}),
          });
        }
        const reason = asObject(response.incomplete_details).reason;
        out.push({
          type: 'finish',
          reason: type === 'response.incomplete' ? String(reason ?? 'max_output_tokens') : 'completed',
        });
        break;
      }
      case 'response.failed': {
        const error = asObject(asObject(data.response).error);
        throw new ProviderError(
          `the provider reported a failed response: ${String(error.message ?? 'no reason given')}`,
        );
      }
      case 'error':
        throw new ProviderError(
          `the provider reported an error mid-stream: ${String(data.message ?? event.data)}`,
        );
    }
    return out;
  }

  end() {
    const raw = [...this.#items.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, item]) => echoItem(item))
      .filter((item) => item !== undefined);
    return { complete: this.#complete, raw };
  }
}
