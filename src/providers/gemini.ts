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

type Part = Record<string, unknown>;

/**
 * Gemini contents (§4): the model's parts echoed verbatim (thoughtSignature stays a sibling of
 * its functionCall), then one user content with a functionResponse per call, in call order.
 * `response` must be an object: the result goes under `result`, a failure under `error`. The id
 * is sent back only when the model gave one; otherwise calls are matched by order and name.
 */
export function geminiContents(messages: readonly ConversationMessage[]): unknown[] {
  const out: unknown[] = [];
  let lastCalls: { id: string; name: string; streamed: boolean }[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', parts: [{ text: m.text }] });
    else if (m.role === 'assistant') {
      const parts: Part[] =
        m.provider === 'gemini' && Array.isArray(m.raw)
          ? (m.raw as Part[])
          : [
              ...(m.text ? [{ text: m.text }] : []),
              ...m.toolCalls.map((c) => ({
                functionCall: { name: c.name, args: argumentsObject(c.arguments) },
              })),
            ];
      const streamedIds = parts
        .map((p) => asObject(p.functionCall))
        .filter((fc) => typeof fc.name === 'string')
        .map((fc) => (typeof fc.id === 'string' ? fc.id : undefined));
      lastCalls = m.toolCalls.map((c, i) => ({ id: c.id, name: c.name, streamed: streamedIds[i] === c.id }));
      out.push({ role: 'model', parts });
    } else {
      out.push({
        role: 'user',
        parts: m.results.map((r) => {
          const call = lastCalls.find((c) => c.id === r.id);
          return {
            functionResponse: {
              name: r.name,
              ...(call?.streamed ? { id: r.id } : {}),
              response: r.ok ? { result: r.content } : { error: r.content },
            },
          };
        }),
      });
    }
  }
  return out;
}

export const geminiAdapter: ProviderAdapter = {
  kind: 'gemini',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  buildRequest(turn: TurnRequest, connection: Connection): HttpRequest {
    const body: Record<string, unknown> = {
      contents: geminiContents(turn.messages),
      generationConfig: { maxOutputTokens: turn.maxTokens },
    };
    if (turn.system) body.systemInstruction = { parts: [{ text: turn.system }] };
    if (turn.tools.length > 0) {
      body.tools = exportDefinitions(turn.tools, 'gemini');
    }
    return {
      url: joinUrl(
        connection.baseUrl,
        `/models/${encodeURIComponent(turn.model)}:streamGenerateContent?alt=sse`,
      ),
      headers: {
        'content-type': 'application/json',
        ...(connection.apiKey ? { 'x-goog-api-key': connection.apiKey } : {}),
      },
      body,
    };
  },
  createDecoder: () => new GeminiDecoder(),
};

/** Sets `value` at a `$.a.b[0]` JSON path (Vertex streamed arguments), concatenating string pieces. */
function setAtPath(root: Record<string, unknown>, jsonPath: string, value: unknown, append: boolean): void {
  const keys = [...jsonPath.replace(/^\$/, '').matchAll(/\.([^.[\]]+)|\[(\d+)\]|\["([^"]*)"\]/g)].map((m) =>
    m[2] !== undefined ? Number(m[2]) : (m[1] ?? m[3] ?? ''),
  );
  if (keys.length === 0) return;
  let node: Record<string | number, unknown> = root;
  for (let i = 0; i < keys.length - 1; i++) {
    const key = keys[i] as string | number;
    const nextIsIndex = typeof keys[i + 1] === 'number';
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = nextIsIndex ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  }
  const last = keys[keys.length - 1] as string | number;
  if (append && typeof node[last] === 'string' && typeof value === 'string')
    node[last] = `${node[last]}${value}`;
  else node[last] = value;
}

interface StreamedCall {
  key: string;
  name: string;
  id?: string;
  args: Record<string, unknown>;
  signature?: unknown;
  /** The last string piece said it continues: the next piece at that path appends. */
  continuing: Set<string>;
}

class GeminiDecoder implements StreamDecoder {
  #complete = false;
  #calls = 0;
  readonly #parts: Part[] = [];
  #streamed: StreamedCall | undefined;

  push(event: SseEvent): StreamEvent[] {
    const chunk = parseEventJson(event);
    if (chunk.error) {
      const error = asObject(chunk.error);
      throw new ProviderError(
        `the provider reported an error mid-stream: ${String(error.message ?? event.data)}`,
      );
    }
    const blocked = asObject(chunk.promptFeedback).blockReason;
    if (typeof blocked === 'string') throw new ProviderError(`the provider blocked the prompt: ${blocked}`);
    const out: StreamEvent[] = [];
    const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : [];
    const candidate = asObject(candidates[0]);
    const parts = Array.isArray(asObject(candidate.content).parts)
      ? (asObject(candidate.content).parts as unknown[])
      : [];
    for (const rawPart of parts) {
      const part = asObject(rawPart);
      if ('functionCall' in part) this.#functionCall(part, out);
      else if (typeof part.text === 'string') {
        if (part.text === '' && part.thoughtSignature === undefined) continue;
        out.push({ type: part.thought === true ? 'reasoning_delta' : 'text_delta', text: part.text });
        this.#addText(part);
      } else this.#parts.push(part);
    }
    const usage = asObject(chunk.usageMetadata);
    if (typeof usage.promptTokenCount === 'number' || typeof usage.candidatesTokenCount === 'number') {
      out.push({
        type: 'usage',
        ...(typeof usage.promptTokenCount === 'number' ? { inputTokens: usage.promptTokenCount } : {}),
        ...(typeof usage.candidatesTokenCount === 'number'
          ? { outputTokens: usage.candidatesTokenCount }
          : {}),
      });
    }
    if (typeof candidate.finishReason === 'string') {
      this.#complete = true;
      out.push({ type: 'finish', reason: candidate.finishReason });
    }
    return out;
  }

  /** Consecutive plain text pieces become one part; anything signed or special stays as sent. */
  #addText(part: Part): void {
    const last = this.#parts[this.#parts.length - 1];
    const plain = (p: Part | undefined) =>
      p !== undefined &&
      Object.keys(p).every((k) => k === 'text' || k === 'thought') &&
      typeof p.text === 'string';
    if (plain(last) && plain(part) && (last as Part).thought === part.thought) {
      (last as Part).text = `${String((last as Part).text)}${String(part.text)}`;
    } else this.#parts.push({ ...part });
  }

  #functionCall(part: Part, out: StreamEvent[]): void {
    const fc = asObject(part.functionCall);
    const open = this.#streamed;
    if (open && (Array.isArray(fc.partialArgs) || (fc.name === undefined && fc.willContinue === true))) {
      for (const piece of Array.isArray(fc.partialArgs) ? fc.partialArgs : []) {
        const p = asObject(piece);
        const path = String(p.jsonPath ?? '');
        let value: unknown;
        if ('stringValue' in p) value = String(p.stringValue);
        else if ('numberValue' in p) value = p.numberValue;
        else if ('boolValue' in p) value = p.boolValue;
        else if ('nullValue' in p) value = null;
        else continue;
        setAtPath(open.args, path, value, open.continuing.has(path));
        if (typeof value === 'string' && p.willContinue === true) open.continuing.add(path);
        else open.continuing.delete(path);
      }
      return;
    }
    if (open && fc.name === undefined) {
      // `functionCall: {}` closes a streamed call.
      this.#closeStreamed(open, out);
      return;
    }
    if (open) this.#closeStreamed(open, out);
    const key = `p${this.#calls++}`;
    const id = typeof fc.id === 'string' && fc.id ? fc.id : undefined;
    const name = typeof fc.name === 'string' ? fc.name : '';
    if (fc.willContinue === true) {
      this.#streamed = {
        key,
        name,
        ...(id ? { id } : {}),
        args: asObject(fc.args),
        signature: part.thoughtSignature,
        continuing: new Set(),
      };
      out.push({ type: 'tool_call_start', key, name, ...(id ? { id } : {}) });
      return;
    }
    // The Gemini API sends each call whole, `args` as an object.
    out.push({
      type: 'tool_call_start',
      key,
      name,
      ...(id ? { id } : {}),
      arguments: JSON.stringify(fc.args ?? {}),
    });
    out.push({ type: 'tool_call_end', key });
    this.#parts.push(part);
  }

  #closeStreamed(open: StreamedCall, out: StreamEvent[]): void {
    this.#streamed = undefined;
    out.push({ type: 'tool_call_delta', key: open.key, arguments: JSON.stringify(open.args) });
    out.push({ type: 'tool_call_end', key: open.key });
    this.#parts.push({
      functionCall: { name: open.name, ...(open.id ? { id: open.id } : {}), args: open.args },
      ...(open.signature === undefined ? {} : { thoughtSignature: open.signature }),
    });
  }

  end() {
    // A streamed call never closed is not complete: its arguments may be partial.
    return { complete: this.#complete && this.#streamed === undefined, raw: this.#parts };
  }
}
