/**
 * A command's output as MCP progress notifications: coalesced (at most one notification per
 * `intervalMs`, or sooner once `maxChunk` characters wait), in order, and complete — nothing is cut
 * or dropped; the capped head-and-tail is only for the final result. When more than `highWater`
 * characters wait or are being written (a client or transport slower than the command), `push`
 * answers a promise that settles once they went out: the command is paused meanwhile, so memory
 * stays bounded however much it prints.
 */
export class ProgressStream {
  readonly #send: (message: string, progress: number, ascii: boolean) => Promise<void>;
  readonly #intervalMs: number;
  readonly #maxChunk: number;
  readonly #highWater: number;
  #buffer = '';
  /** Everything in #buffer is printable ASCII, tab and newline (see ToolEvent's `ascii`). */
  #ascii = true;
  #timer: NodeJS.Timeout | undefined;
  #progress = 0;
  #sending: Promise<void> = Promise.resolve();
  /** Characters pushed and not yet handed to the transport. */
  #pending = 0;

  constructor(
    send: (message: string, progress: number, ascii: boolean) => Promise<void>,
    options: { intervalMs?: number; maxChunk?: number; highWater?: number } = {},
  ) {
    this.#send = send;
    this.#intervalMs = options.intervalMs ?? 250;
    // 64 K characters a notification: clients take a line apart in pieces of their read size, and
    // a longer line costs them (and the server's memory) more than a few more notifications.
    this.#maxChunk = options.maxChunk ?? 64 * 1024;
    this.#highWater = options.highWater ?? 1 << 20;
  }

  push(text: string, ascii = false): Promise<void> | undefined {
    this.#buffer += text;
    this.#ascii &&= ascii;
    this.#pending += text.length;
    if (this.#buffer.length >= this.#maxChunk) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), this.#intervalMs);
    return this.#pending > this.#highWater ? this.flush() : undefined;
  }

  /** Sends what waits; resolves once everything pushed so far has been handed to the transport. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const text = this.#buffer;
    const ascii = this.#ascii;
    this.#buffer = '';
    this.#ascii = true;
    if (text) {
      const progress = ++this.#progress;
      // A failed send (client gone) still counts as done: the call's own result reports the end.
      this.#sending = this.#sending
        .then(() => this.#send(text, progress, ascii))
        .catch(() => {})
        .finally(() => {
          this.#pending -= text.length;
        });
    }
    return this.#sending;
  }
}
