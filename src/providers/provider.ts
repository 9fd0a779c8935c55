import type { ConversationMessage, ProviderKind } from '../core/conversation.js';
import type { StreamEvent } from '../core/stream-event.js';
import type { JsonSchema } from '../core/tool-definition.js';
import type { SseEvent } from './sse-parser.js';

/** A tool as advertised to a model: registry tools and config-defined ones (CFG-TOOLS-02) alike. */
export interface AdvertisedTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export interface TurnRequest {
  model: string;
  system?: string;
  messages: readonly ConversationMessage[];
  /** Empty when tools are disabled (FR-MODE-01): nothing is advertised. */
  tools: readonly AdvertisedTool[];
  maxTokens: number;
}

export interface Connection {
  baseUrl: string;
  apiKey?: string;
  /** Longest silence (no answer, then no byte of the stream) before the turn fails; default 300 s. */
  idleTimeoutMs?: number;
}

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** What a finished stream left behind besides its events. */
export interface StreamEnd {
  /** False when the stream ended without its terminator: nothing from it runs or resumes. */
  complete: boolean;
  /** The provider's own form of the assistant turn, for a verbatim echo. */
  raw?: unknown;
}

export interface StreamDecoder {
  /** Turns one SSE event into normalized events; throws ProviderError on an error event. */
  push(event: SseEvent): StreamEvent[];
  end(): StreamEnd;
}

export interface ProviderAdapter {
  readonly kind: ProviderKind;
  readonly defaultBaseUrl: string;
  buildRequest(turn: TurnRequest, connection: Connection): HttpRequest;
  createDecoder(): StreamDecoder;
}

/** A provider or transport failure, said plainly; `retryable` only for 429/5xx before any output. */
export class ProviderError extends Error {
  readonly status: number | undefined;
  readonly retryable: boolean;
  constructor(message: string, options: { status?: number; retryable?: boolean } = {}) {
    super(message);
    this.name = 'ProviderError';
    this.status = options.status;
    this.retryable = options.retryable ?? false;
  }
}

/** Parses one event's JSON; a broken payload means the stream is damaged. */
export function parseEventJson(event: SseEvent): Record<string, unknown> {
  try {
    const value = JSON.parse(event.data) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new ProviderError(
    `the provider sent an event that is not a JSON object: ${event.data.slice(0, 200)}`,
  );
}

export function joinUrl(base: string, suffix: string): string {
  return `${base.replace(/\/+$/, '')}${suffix}`;
}

/** The value when it is a plain object, else an empty one (provider payloads are untrusted). */
export function asObject(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A call's argument text as the object providers want back (Anthropic `input`, Gemini `args`); `{}` if it is not one. */
export function argumentsObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    return asObject(JSON.parse(text));
  } catch {
    return {};
  }
}
