/**
 * toolgate's own small provider streams (written here, not copied): the same wire shapes and
 * quirks as the recorded corpus in ../shared/provider-fixtures, so the adapters and the loop are
 * covered for someone who cloned this repository alone.
 */
import type { ProviderKind } from '../../src/core/conversation.js';

const sse = (data: unknown, event?: string, eol = '\n') =>
  `${event ? `event: ${event}${eol}` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}${eol}${eol}`;

/** Splits a string into `n` pieces (some empty), the way providers fragment arguments. */
export function fragments(text: string, n: number): string[] {
  if (n <= 1 || text.length === 0) return [text];
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export interface CallSpec {
  id?: string;
  name: string;
  args: string;
  /** Argument fragments (default 3). */
  pieces?: number;
}

export interface ChatSpec {
  text?: string;
  calls?: CallSpec[];
  finish?: string | null;
  done?: boolean;
  /** Quirks of OpenAI-compatible servers (providers.md §6). */
  noIndex?: boolean;
  sameIndex?: boolean;
  noArgumentsKey?: boolean;
  repeatName?: boolean;
  wholeArgs?: boolean;
  usageChunk?: boolean;
}

export function chatStream(spec: ChatSpec): string {
  let out = sse({
    id: 'cmpl-1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }],
  });
  if (spec.text) {
    for (const piece of fragments(spec.text, 3)) {
      out += sse({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
    }
  }
  (spec.calls ?? []).forEach((call, i) => {
    const index = spec.noIndex ? undefined : spec.sameIndex ? 0 : i;
    const at = index === undefined ? {} : { index };
    if (spec.wholeArgs) {
      out += sse({
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              content: '',
              tool_calls: [
                { ...at, id: call.id, type: 'function', function: { name: call.name, arguments: call.args } },
              ],
            },
            finish_reason: null,
          },
        ],
      });
      return;
    }
    const first = spec.noArgumentsKey ? { name: call.name } : { name: call.name, arguments: '' };
    out += sse({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [{ ...at, ...(call.id ? { id: call.id } : {}), type: 'function', function: first }],
          },
          finish_reason: null,
        },
      ],
    });
    for (const piece of fragments(call.args, call.pieces ?? 3)) {
      const fn = spec.repeatName ? { name: call.name, arguments: piece } : { arguments: piece };
      out += sse({
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ ...at, ...(spec.sameIndex ? { id: '' } : {}), function: fn }] },
            finish_reason: null,
          },
        ],
      });
    }
  });
  const finish =
    spec.finish === undefined ? ((spec.calls ?? []).length ? 'tool_calls' : 'stop') : spec.finish;
  if (finish !== null) out += sse({ choices: [{ index: 0, delta: {}, finish_reason: finish }] });
  if (spec.usageChunk ?? true)
    out += sse({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } });
  if (spec.done ?? true) out += sse('[DONE]');
  return out;
}

export interface ResponsesSpec {
  text?: string;
  calls?: (CallSpec & { itemId?: string })[];
  reasoning?: { id: string; encrypted: string };
  /** LM Studio: no argument deltas, the arguments only in `.done`. */
  noDeltas?: boolean;
  complete?: boolean;
  incomplete?: boolean;
}

export function responsesStream(spec: ResponsesSpec): string {
  let out = sse(
    { type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [] } },
    'response.created',
  );
  let index = 0;
  if (spec.reasoning) {
    const item = {
      type: 'reasoning',
      id: spec.reasoning.id,
      summary: [],
      encrypted_content: spec.reasoning.encrypted,
    };
    out += sse(
      { type: 'response.output_item.added', output_index: index, item },
      'response.output_item.added',
    );
    out += sse({ type: 'response.output_item.done', output_index: index, item }, 'response.output_item.done');
    index++;
  }
  if (spec.text) {
    const id = 'msg_1';
    out += sse(
      {
        type: 'response.output_item.added',
        output_index: index,
        item: { type: 'message', id, role: 'assistant', content: [], status: 'in_progress' },
      },
      'response.output_item.added',
    );
    for (const piece of fragments(spec.text, 3)) {
      out += sse(
        {
          type: 'response.output_text.delta',
          item_id: id,
          output_index: index,
          content_index: 0,
          delta: piece,
        },
        'response.output_text.delta',
      );
    }
    out += sse(
      {
        type: 'response.output_item.done',
        output_index: index,
        item: {
          type: 'message',
          id,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: spec.text, annotations: [] }],
        },
      },
      'response.output_item.done',
    );
    index++;
  }
  for (const [i, call] of (spec.calls ?? []).entries()) {
    const itemId = call.itemId ?? `fc_${i}`;
    const base = { type: 'function_call', id: itemId, call_id: call.id ?? `call_${i}`, name: call.name };
    out += sse(
      {
        type: 'response.output_item.added',
        output_index: index,
        item: { ...base, arguments: '', status: 'in_progress' },
      },
      'response.output_item.added',
    );
    if (!spec.noDeltas) {
      for (const piece of fragments(call.args, call.pieces ?? 3)) {
        out += sse(
          {
            type: 'response.function_call_arguments.delta',
            item_id: itemId,
            output_index: index,
            delta: piece,
          },
          'response.function_call_arguments.delta',
        );
      }
    }
    out += sse(
      {
        type: 'response.function_call_arguments.done',
        item_id: itemId,
        output_index: index,
        arguments: call.args,
      },
      'response.function_call_arguments.done',
    );
    out += sse(
      {
        type: 'response.output_item.done',
        output_index: index,
        item: { ...base, arguments: call.args, status: 'completed' },
      },
      'response.output_item.done',
    );
    index++;
  }
  if (spec.incomplete) {
    out += sse(
      {
        type: 'response.incomplete',
        response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
      },
      'response.incomplete',
    );
  } else if (spec.complete ?? true) {
    out += sse(
      {
        type: 'response.completed',
        response: { status: 'completed', usage: { input_tokens: 20, output_tokens: 9 } },
      },
      'response.completed',
    );
  }
  return out;
}

export interface AnthropicSpec {
  text?: string;
  thinking?: { text: string; signature: string };
  calls?: CallSpec[];
  stop?: string;
  terminated?: boolean;
}

export function anthropicStream(spec: AnthropicSpec): string {
  let out = sse(
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [],
        usage: { input_tokens: 30, output_tokens: 1 },
      },
    },
    'message_start',
  );
  out += sse({ type: 'ping' }, 'ping');
  let index = 0;
  if (spec.thinking) {
    out += sse(
      {
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      'content_block_start',
    );
    out += sse(
      { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: spec.thinking.text } },
      'content_block_delta',
    );
    out += sse(
      {
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: spec.thinking.signature },
      },
      'content_block_delta',
    );
    out += sse({ type: 'content_block_stop', index }, 'content_block_stop');
    index++;
  }
  if (spec.text) {
    out += sse(
      { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
      'content_block_start',
    );
    for (const piece of fragments(spec.text, 3)) {
      out += sse(
        { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } },
        'content_block_delta',
      );
    }
    out += sse({ type: 'content_block_stop', index }, 'content_block_stop');
    index++;
  }
  for (const call of spec.calls ?? []) {
    out += sse(
      {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      },
      'content_block_start',
    );
    for (const piece of ['', ...fragments(call.args, call.pieces ?? 3)]) {
      out += sse(
        { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } },
        'content_block_delta',
      );
    }
    out += sse({ type: 'content_block_stop', index }, 'content_block_stop');
    index++;
  }
  const stop = spec.stop ?? ((spec.calls ?? []).length ? 'tool_use' : 'end_turn');
  out += sse(
    {
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 15 },
    },
    'message_delta',
  );
  if (!spec.terminated) out += sse({ type: 'message_stop' }, 'message_stop');
  return out;
}

export interface GeminiSpec {
  text?: string;
  calls?: { name: string; args: Record<string, unknown>; id?: string; signature?: string }[];
  finish?: string | null;
}

/** Gemini frames events with CRLF. */
export function geminiStream(spec: GeminiSpec): string {
  let out = '';
  const chunk = (parts: unknown[], finish?: string) =>
    sse(
      {
        candidates: [{ content: { role: 'model', parts }, ...(finish ? { finishReason: finish } : {}) }],
        usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 5 },
      },
      undefined,
      '\r\n',
    );
  if (spec.text) for (const piece of fragments(spec.text, 2)) out += chunk([{ text: piece }]);
  for (const call of spec.calls ?? []) {
    out += chunk([
      {
        functionCall: { name: call.name, args: call.args, ...(call.id ? { id: call.id } : {}) },
        ...(call.signature ? { thoughtSignature: call.signature } : {}),
      },
    ]);
  }
  const finish = spec.finish === undefined ? 'STOP' : spec.finish;
  if (finish !== null) out += chunk([{ text: '' }], finish);
  return out;
}

/** A plain final answer in each wire format. */
export function textAnswer(kind: ProviderKind, text: string): string {
  switch (kind) {
    case 'openai':
    case 'openai-compatible':
      return chatStream({ text });
    case 'openai-responses':
      return responsesStream({ text });
    case 'anthropic':
      return anthropicStream({ text });
    case 'gemini':
      return geminiStream({ text });
  }
}
