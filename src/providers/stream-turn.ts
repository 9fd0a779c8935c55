import type { AssistantToolCall } from '../core/conversation.js';
import type { StreamEvent } from '../core/stream-event.js';
import {
  type Connection,
  type HttpRequest,
  type ProviderAdapter,
  ProviderError,
  type TurnRequest,
} from './provider.js';
import { cleanProviderText, secretsOf } from './provider-error-text.js';
import { SseParser } from './sse-parser.js';
import { ToolCallAccumulator } from './tool-call-accumulator.js';

export interface StreamedTurn {
  text: string;
  reasoning: string;
  toolCalls: AssistantToolCall[];
  finishReason: string | undefined;
  /** False when the stream stopped before its terminator (or broke): nothing from it may run. */
  complete: boolean;
  /** Why it is incomplete, for the person. */
  problem?: string;
  raw: unknown;
  usage: { inputTokens?: number; outputTokens?: number };
}

export interface StreamTurnOptions {
  signal?: AbortSignal;
  onEvent?: (event: StreamEvent) => void;
  /** Each tool call the moment it is whole (FR-RES-04a), with its position in call order. */
  onCallClosed?: (call: AssistantToolCall, index: number) => void;
  /** Attempts after the first for 429/5xx answers that came before any output. */
  retries?: number;
  /** Told before each retry, with what went wrong. */
  onRetry?: (attempt: number, reason: string) => void;
  backoffMs?: number;
  fetch?: typeof fetch;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** The provider's error message from an error body, whatever its shape. */
function errorMessage(body: string): string {
  try {
    const value = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof value.error === 'string') return value.error;
    if (value.error && typeof value.error.message === 'string') return value.error.message;
    if (typeof value.message === 'string') return value.message;
  } catch {
    // not JSON
  }
  return body.slice(0, 300) || '(empty body)';
}

async function post(request: HttpRequest, options: StreamTurnOptions): Promise<Response> {
  const doFetch = options.fetch ?? fetch;
  const retries = options.retries ?? 2;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await doFetch(request.url, {
        method: 'POST',
        headers: { accept: 'text/event-stream', ...request.headers },
        body: JSON.stringify(request.body),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new ProviderError(
        `could not reach ${new URL(request.url).origin}: ${cause ?? (error as Error).message}; check --base-url and that the server is running`,
      );
    }
    if (response.ok) return response;
    const body = await response.text().catch(() => '');
    const retryable = response.status === 429 || response.status >= 500;
    if (retryable && attempt < retries) {
      options.onRetry?.(attempt + 1, `HTTP ${response.status}: ${errorMessage(body)}`);
      const after = Number(response.headers.get('retry-after'));
      const wait =
        Number.isFinite(after) && after > 0
          ? Math.min(after * 1000, 30_000)
          : (options.backoffMs ?? 500) * 2 ** attempt;
      await sleep(wait, options.signal);
      continue;
    }
    throw new ProviderError(`HTTP ${response.status} from ${request.url}: ${errorMessage(body)}`, {
      status: response.status,
      retryable,
    });
  }
}

/**
 * One model turn over HTTP: POST, parse the SSE stream, normalize, accumulate tool calls.
 * Retries (with backoff, honouring Retry-After) only a 429/5xx that came before any output; a
 * mid-stream error event throws; a stream that stops early comes back with `complete: false`.
 */
export async function streamTurn(
  adapter: ProviderAdapter,
  turn: TurnRequest,
  connection: Connection,
  options: StreamTurnOptions = {},
): Promise<StreamedTurn> {
  // A server that accepts the request and then says nothing must not hold the turn forever: the
  // request is aborted after `idleTimeoutMs` of silence, counted again from every byte received.
  const idleMs = connection.idleTimeoutMs ?? 300_000;
  const idle = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const quiet = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleMs);
  };
  const onOuterAbort = () => idle.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  quiet();
  // What the provider says goes to the person, the model and the journal: without the key, and short.
  const secrets = secretsOf(connection);
  const clean = (text: string) => cleanProviderText(text, secrets);
  const onRetry = options.onRetry;
  const inner: StreamTurnOptions = {
    ...options,
    signal: idle.signal,
    ...(onRetry ? { onRetry: (attempt: number, reason: string) => onRetry(attempt, clean(reason)) } : {}),
  };
  try {
    const result = await streamTurnWithin(adapter, turn, connection, inner, quiet, secrets);
    if (result.problem !== undefined) result.problem = clean(result.problem);
    return result;
  } catch (error) {
    if (idle.signal.aborted && !options.signal?.aborted) {
      throw new ProviderError(
        `no answer from ${new URL(connection.baseUrl).origin} for ${Math.round(idleMs / 1000)} s; check that the server is running, or raise idle_timeout_seconds in [providers.NAME]`,
        { retryable: true },
      );
    }
    if (error instanceof ProviderError) {
      throw new ProviderError(clean(error.message), {
        ...(error.status === undefined ? {} : { status: error.status }),
        retryable: error.retryable,
      });
    }
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
}

async function streamTurnWithin(
  adapter: ProviderAdapter,
  turn: TurnRequest,
  connection: Connection,
  options: StreamTurnOptions,
  heard: () => void,
  secrets: string[],
): Promise<StreamedTurn> {
  const request = adapter.buildRequest(turn, connection);
  secrets.push(...secretsOf({ baseUrl: connection.baseUrl }, request));
  const response = await post(request, options);
  heard();
  const decoder = adapter.createDecoder();
  const parser = new SseParser();
  // What the call listener throws (the journal failing to record a call) is its own failure, not the
  // connection's: it goes out as it is.
  let listenerFailure: { error: unknown } | undefined;
  const onCallClosed = options.onCallClosed;
  const calls = new ToolCallAccumulator(
    onCallClosed
      ? {
          onClosed: (call, index) => {
            try {
              onCallClosed(call, index);
            } catch (error) {
              listenerFailure ??= { error };
              throw error;
            }
          },
        }
      : {},
  );
  const result: StreamedTurn = {
    text: '',
    reasoning: '',
    toolCalls: [],
    finishReason: undefined,
    complete: false,
    raw: undefined,
    usage: {},
  };
  const handle = (event: StreamEvent) => {
    switch (event.type) {
      case 'text_delta':
        result.text += event.text;
        break;
      case 'reasoning_delta':
        result.reasoning += event.text;
        break;
      case 'usage':
        if (event.inputTokens !== undefined) result.usage.inputTokens = event.inputTokens;
        if (event.outputTokens !== undefined) result.usage.outputTokens = event.outputTokens;
        break;
      case 'finish':
        result.finishReason = event.reason;
        calls.finish(); // every call is whole once the model says it finished
        break;
      default:
        calls.apply(event);
    }
    options.onEvent?.(event);
  };
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('application/json')) {
    // A JSON body where a stream was asked for: an error, or a server that ignored `stream: true`.
    const text = await response.text().catch(() => '');
    throw new ProviderError(`the provider answered with JSON instead of a stream: ${errorMessage(text)}`);
  }
  if (!response.body) throw new ProviderError('the provider sent an empty response');
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      heard();
      for (const sse of parser.push(value)) for (const event of decoder.push(sse)) handle(event);
    }
    for (const sse of parser.end()) for (const event of decoder.push(sse)) handle(event);
  } catch (error) {
    if (options.signal?.aborted || error instanceof ProviderError) throw error;
    if (listenerFailure) throw listenerFailure.error;
    result.problem = `the connection broke mid-stream (${(error as Error).message})`;
  } finally {
    reader.releaseLock();
  }
  const end = decoder.end();
  result.toolCalls = calls.finish();
  result.raw = end.raw;
  result.complete = end.complete && result.problem === undefined;
  if (!result.complete && !result.problem) result.problem = 'the response stream ended before its terminator';
  return result;
}
