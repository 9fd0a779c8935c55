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
    const buffer = this.#buffer;
    let start = 0;
    // Jump from line break to line break (indexOf is native; a char loop is not).
    // Each search result is kept until passed, so a buffer without any CR is scanned once, not per line.
    let lf = -2;
    let cr = -2;
    for (;;) {
      if (lf !== -1 && lf < start) lf = buffer.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = buffer.indexOf('\r', start);
      const i = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (i === -1) break;
      this.#line(buffer.slice(start, i), out);
      start = i + 1;
      if (buffer.charCodeAt(i) === 13) {
        if (i + 1 < buffer.length) {
          if (buffer.charCodeAt(i + 1) === 10) start++;
        } else {
          this.#lastWasCr = true;
        }
      }
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
