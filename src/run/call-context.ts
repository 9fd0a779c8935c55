import type { Clearance, ToolContext } from '../core/tool-definition.js';
import type { ToolError } from '../core/tool-error.js';
import type { ToolEventSink } from '../core/tool-event.js';
import { isCleanAscii } from '../output/clean-ascii.js';
import { sanitizeForTerminal } from '../output/sanitize-terminal.js';
import type { ResolvedPath, Sandbox } from '../sandbox/sandbox.js';

/**
 * One call's ToolContext (seed 000 FR-REG-04a), built fresh per call. Its abort signal is made only
 * if the tool asks for it: most calls finish without ever needing one.
 */
export class CallContext implements ToolContext {
  readonly callId: string;
  readonly sandbox: Sandbox;
  readonly outputLimit: number;
  readonly paths: readonly ResolvedPath[] | undefined;
  readonly streaming: boolean;
  readonly traceparent: string | undefined;
  readonly clearance: Clearance | undefined;
  readonly #onEvent: ToolEventSink | undefined;
  #controller: AbortController | undefined;
  #stopReason: ToolError | undefined;

  constructor(
    callId: string,
    sandbox: Sandbox,
    outputLimit: number,
    paths: readonly ResolvedPath[] | undefined,
    onEvent: ToolEventSink | undefined,
    traceparent?: string,
    clearance?: Clearance,
  ) {
    this.traceparent = traceparent;
    this.clearance = clearance;
    this.callId = callId;
    this.sandbox = sandbox;
    this.outputLimit = outputLimit;
    this.paths = paths;
    this.#onEvent = onEvent;
    this.streaming = onEvent !== undefined;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#stopReason) this.#controller.abort(this.#stopReason);
    }
    return this.#controller.signal;
  }

  /**
   * Bound, so a tool may hand it on as a callback. Output after the call stopped is dropped. The
   * consumer's promise, if it returned one, is handed back: the tool waits for it (backpressure).
   */
  readonly emit = (
    stream: 'stdout' | 'stderr',
    chunk: string | Uint8Array,
  ): undefined | PromiseLike<void> => {
    if (this.#stopReason || !this.#onEvent) return undefined;
    const ascii = typeof chunk !== 'string' && isCleanAscii(chunk);
    const wait = this.#onEvent(
      ascii
        ? { type: stream, callId: this.callId, chunk: latin1(chunk), ascii }
        : { type: stream, callId: this.callId, chunk: terminalSafe(chunk) },
    );
    return isThenable(wait) ? wait : undefined;
  };

  /** Ends the call for the tool: the first reason given is the one its signal carries. */
  stop(reason: ToolError): void {
    this.#stopReason ??= reason;
    this.#controller?.abort(reason);
  }
}

/** Event text for a UI, sanitized (plain printable ASCII skips this: see `emit`). */
function terminalSafe(chunk: string | Uint8Array): string {
  if (typeof chunk === 'string') return sanitizeForTerminal(chunk);
  return sanitizeForTerminal(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8'));
}

/** Bytes known to be ASCII, as a string (Latin-1 decoding: one byte, one character, no checks). */
function latin1(chunk: Uint8Array): string {
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
}

function isThenable(value: unknown): value is PromiseLike<void> {
  return typeof (value as PromiseLike<void> | undefined)?.then === 'function';
}
