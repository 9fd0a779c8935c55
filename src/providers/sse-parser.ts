/** One server-sent event: the `event:` name (if any) and its `data:` lines joined by "\n". */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * Incremental `text/event-stream` parser (WHATWG rules): lines end in CRLF, LF or CR (Gemini uses
 * CRLF), a blank line dispatches, `:` lines are comments. Bytes may split anywhere, even inside a
 * UTF-8 sequence or between CR and LF. At the end, an event left without its blank line is still
 * dispatched (a recorded Anthropic stream ends that way); if it was cut off, its JSON fails later.
 */
export class SseParser {
  readonly #decoder = new TextDecoder();
  #buffer = '';
  #event: string | undefined;
  #data: string[] = [];
  #lastWasCr = false;

  push(chunk: Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.#decoder.decode(chunk, { stream: true });
    if (this.#lastWasCr && text.startsWith('\n')) text = text.slice(1);
    this.#lastWasCr = false;
    this.#buffer += text;
    const out: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.#buffer.length; i++) {
      const c = this.#buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.#line(this.#buffer.slice(start, i), out);
      if (c === 13) {
        if (i + 1 < this.#buffer.length) {
          if (this.#buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.#lastWasCr = true;
        }
      }
      start = i + 1;
    }
    this.#buffer = this.#buffer.slice(start);
    return out;
  }

  /** Ends the stream: returns a last event that had no terminating blank line. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    const rest = this.#buffer + this.#decoder.decode();
    this.#buffer = '';
    if (rest) this.#line(rest, out);
    this.#dispatch(out);
    return out;
  }

  #line(line: string, out: SseEvent[]): void {
    if (line === '') {
      this.#dispatch(out);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
  }

  #dispatch(out: SseEvent[]): void {
    if (this.#data.length > 0) {
      out.push({ ...(this.#event === undefined ? {} : { event: this.#event }), data: this.#data.join('\n') });
    }
    this.#event = undefined;
    this.#data = [];
  }
}
