import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CancelledNotificationSchema,
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { asciiProgressLine } from './ascii-progress.js';
import { LineSplitter } from './line-splitter.js';
import { type PlainToolsCallParams, plainToolsCall } from './plain-tools-call.js';

/** Runs one plain `tools/call` (what the server's tools/call handler does, minus the SDK around it). */
export type DirectToolCall = (
  params: PlainToolsCallParams,
  context: { signal: AbortSignal; notify: (notification: ServerNotification) => Promise<void> },
) => Promise<CallToolResult>;

/** The SDK stdio transport's bound on a line that has not ended yet. */
const MAX_PENDING_BYTES = 10 * 1024 * 1024;

/**
 * The stdio transport of `toolgate mcp`: newline-delimited JSON-RPC on stdin and stdout, as the
 * SDK's, with two fast lanes. A plain `tools/call` (plain-tools-call.ts) is run here directly and
 * answered here, with its own cancellation (`notifications/cancelled`, the connection closing);
 * every other message is validated by the SDK's schema and handed to the SDK server as usual.
 * And a marked plain-ASCII progress notification is written without JSON.stringify.
 */
export class FastStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  readonly #direct: DirectToolCall | undefined;
  readonly #lines = new LineSplitter(MAX_PENDING_BYTES);
  #started = false;
  #closed = false;
  /**
   * Direct calls still running: by request id, the latest with that id, for a cancellation (as
   * the SDK keeps them); and all of them, for the close.
   */
  readonly #byId = new Map<string | number, AbortController>();
  readonly #running = new Set<AbortController>();

  constructor(
    stdin: NodeJS.ReadableStream = process.stdin,
    stdout: NodeJS.WritableStream = process.stdout,
    direct?: DirectToolCall,
  ) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#direct = direct;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('FastStdioServerTransport already started');
    this.#started = true;
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('error', this.#onError);
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onData = (chunk: Buffer | string) => {
    const whole = this.#lines.push(
      typeof chunk === 'string' ? Buffer.from(chunk) : chunk,
      this.#line,
      () => this.#closed,
    );
    if (!whole) {
      this.onerror?.(new Error(`a message longer than ${MAX_PENDING_BYTES} bytes: the connection is closed`));
      void this.close();
    }
  };

  /** One message. Whatever goes wrong with it is reported, never thrown out of the stream's listener. */
  readonly #line = (text: string) => {
    try {
      this.#message(text);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  };

  #message(text: string) {
    if (text.trim() === '') return; // a blank line between messages is no message
    const value = JSON.parse(text) as unknown;
    const call = this.#direct ? plainToolsCall(value) : undefined;
    if (call && this.#direct) {
      this.#run(call.id, call.params, this.#direct);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) throw new Error(`not a JSON-RPC message: ${parsed.error.message}`);
    const message = parsed.data;
    if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) {
      const cancelled = CancelledNotificationSchema.safeParse(message);
      const id = cancelled.success ? cancelled.data.params.requestId : undefined;
      if (id !== undefined) this.#byId.get(id)?.abort(cancelled.data?.params.reason);
    }
    this.onmessage?.(message);
  }

  /**
   * One direct call, answered here unless it was cancelled (then, as in the SDK, not at all). A
   * call cancelled before it started still starts, aborted: the journal records it as cancelled.
   */
  #run(id: string | number, params: PlainToolsCallParams, direct: DirectToolCall) {
    const controller = new AbortController();
    this.#byId.set(id, controller);
    this.#running.add(controller);
    const { signal } = controller;
    // The object is sent as it is (a marked progress params object keeps its fast path).
    const notify = (notification: ServerNotification) =>
      signal.aborted ? Promise.resolve() : this.send({ ...notification, jsonrpc: '2.0' });
    // Started two turns later, as the SDK starts a request's handler (a notification's runs one
    // turn later): what the client sent around the call is handled in the order it was before.
    Promise.resolve()
      .then(() => undefined)
      .then(() => direct(params, { signal, notify }))
      .then(
        // Keys in the SDK's order (a client matching text at the end of a line still finds the id).
        (result) => (signal.aborted ? undefined : this.send({ result, jsonrpc: '2.0', id })),
        (error: { code?: unknown; message?: unknown; data?: unknown }) => {
          if (signal.aborted) return undefined;
          const code = Number.isSafeInteger(error?.code) ? (error.code as number) : ErrorCode.InternalError;
          const message = typeof error?.message === 'string' ? error.message : 'Internal error';
          const data = error?.data === undefined ? {} : { data: error.data };
          return this.send({ jsonrpc: '2.0', id, error: { code, message, ...data } });
        },
      )
      .catch((error: Error) => this.onerror?.(error))
      .finally(() => {
        if (this.#byId.get(id) === controller) this.#byId.delete(id);
        this.#running.delete(controller);
      });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    // Paused only when nobody else reads it, as the SDK's transport does.
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#lines.clear();
    // Running calls stop, as the SDK aborts its handlers when the connection closes.
    for (const controller of this.#running) controller.abort();
    this.#running.clear();
    this.#byId.clear();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      const ascii = asciiProgressLine(message);
      // An ASCII line is one byte per character: written as Latin-1, the stream copies it straight
      // from the string (no Buffer made for it here, no UTF-8 work).
      const written =
        ascii === undefined
          ? this.#stdout.write(`${JSON.stringify(message)}\n`)
          : this.#stdout.write(ascii, 'latin1');
      if (written) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }
}
