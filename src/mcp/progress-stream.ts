/**
 * A command's output as MCP progress notifications: coalesced (at most one notification per
 * `intervalMs`, or sooner once `maxChunk` characters wait), in order, and complete — nothing is cut
 * or dropped; the capped head-and-tail is only for the final result.
 */
export class ProgressStream {
  readonly #send: (message: string, progress: number) => Promise<void>;
  readonly #intervalMs: number;
  readonly #maxChunk: number;
  #buffer = '';
  #timer: NodeJS.Timeout | undefined;
  #progress = 0;
  #sending: Promise<void> = Promise.resolve();

  constructor(
    send: (message: string, progress: number) => Promise<void>,
    intervalMs = 250,
    maxChunk = 1 << 20,
  ) {
    this.#send = send;
    this.#intervalMs = intervalMs;
    this.#maxChunk = maxChunk;
  }

  push(text: string): void {
    this.#buffer += text;
    if (this.#buffer.length >= this.#maxChunk) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), this.#intervalMs);
  }

  /** Sends what waits; resolves once everything pushed so far has been handed to the transport. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const text = this.#buffer;
    this.#buffer = '';
    if (text) {
      const progress = ++this.#progress;
      this.#sending = this.#sending.then(() => this.#send(text, progress)).catch(() => {});
    }
    return this.#sending;
  }
}
