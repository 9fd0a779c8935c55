import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { asciiProgressLine } from './ascii-progress.js';
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
  /** The start of a line not ended yet, in the chunks it came in (joined once, when it ends). */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #started = false;
  #closed = false;
  /** Direct calls still running, by request id: a cancellation or the close aborts them. */
  readonly #running = new Map<string | number, AbortController>();

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
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let end = data.indexOf(10);
    if (end === -1) {
      this.#pendingBytes += data.length;
      if (this.#pendingBytes > MAX_PENDING_BYTES) {
        this.#pending = [];
        this.#pendingBytes = 0;
        this.onerror?.(
          new Error(`a message longer than ${MAX_PENDING_BYTES} bytes: the connection is closed`),
        );
        void this.close();
        return;
      }
      this.#pending.push(data);
      return;
    }
    if (this.#pending.length > 0) {
      this.#pending.push(data);
      end += this.#pendingBytes;
      data = Buffer.concat(this.#pending);
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    let start = 0;
    while (end !== -1 && !this.#closed) {
      this.#line(data.toString('utf8', start, end)); // a CRLF line's CR is whitespace to JSON.parse
      start = end + 1;
      end = data.indexOf(10, start);
    }
    if (start < data.length && !this.#closed) {
      this.#pending.push(data.subarray(start));
      this.#pendingBytes = data.length - start;
    }
  };

  #line(text: string) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    const call = this.#direct ? plainToolsCall(value) : undefined;
    if (call && this.#direct) {
      this.#run(call.id, call.params, this.#direct);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.onerror?.(new Error(`not a JSON-RPC message: ${parsed.error.message}`));
      return;
    }
    const message = parsed.data;
    if ('method' in message && message.method === 'notifications/cancelled' && !('id' in message)) {
      const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) this.#running.get(id)?.abort(message.params?.reason);
    }
    this.onmessage?.(message);
  }

  /** One direct call: answered here, unless it was cancelled (then, as in the SDK, not at all). */
  #run(id: string | number, params: PlainToolsCallParams, direct: DirectToolCall) {
    const controller = new AbortController();
    this.#running.get(id)?.abort(); // the same id again: the older call's answer could not be told apart
    this.#running.set(id, controller);
    const { signal } = controller;
    // The object is sent as it is (a marked progress params object keeps its fast path).
    const notify = (notification: ServerNotification) =>
      signal.aborted ? Promise.resolve() : this.send({ ...notification, jsonrpc: '2.0' });
    // Started a turn later, as the SDK starts a handler: a notification read just before (the
    // client's `initialized`, which sets the roots the call must wait for) is handled first.
    Promise.resolve()
      // Cancelled before it started: not started at all.
      .then(() => (signal.aborted ? undefined : direct(params, { signal, notify })))
      .then(
        (result) => (signal.aborted || !result ? undefined : this.send({ jsonrpc: '2.0', id, result })),
        (error: { code?: unknown; message?: unknown }) => {
          if (signal.aborted) return undefined;
          const code = Number.isSafeInteger(error?.code) ? (error.code as number) : ErrorCode.InternalError;
          const message = typeof error?.message === 'string' ? error.message : 'Internal error';
          return this.send({ jsonrpc: '2.0', id, error: { code, message } });
        },
      )
      .catch((error: Error) => this.onerror?.(error))
      .finally(() => {
        if (this.#running.get(id) === controller) this.#running.delete(id);
      });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('error', this.#onError);
    // Paused only when nobody else reads it, as the SDK's transport does.
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    this.#pending = [];
    this.#pendingBytes = 0;
    // Running calls stop, as the SDK aborts its handlers when the connection closes.
    for (const controller of this.#running.values()) controller.abort();
    this.#running.clear();
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const ascii = asciiProgressLine(message);
    // An ASCII line is one byte per character: Latin-1 encoding is a copy, with no UTF-8 work.
    const data = ascii === undefined ? `${JSON.stringify(message)}\n` : Buffer.from(ascii, 'latin1');
    return new Promise((resolve) => {
      if (this.#stdout.write(data)) resolve();
      else this.#stdout.once('drain', resolve);
    });
  }
}
