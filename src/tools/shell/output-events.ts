import { Utf8Chunks } from './utf8-chunks.js';

export type OutputStream = 'stdout' | 'stderr';

/**
 * A command's output as few, large UI events, in the order it arrived. Pipe reads are small (a
 * gigabyte comes in ~80,000 of them); one event per read costs more than the command. Pieces are
 * copied into one buffer of `maxBytes` and go out when it is full, `delayMs` after the first one,
 * when the other stream speaks or when the stream ends, always ending on a whole UTF-8 character.
 * The chunks pushed are not kept (the reader may reuse its buffer), and `emit` must read the bytes
 * before it returns. When the consumer answers with a promise, `onBehind` gets it: the caller stops
 * reading until it settles (backpressure).
 */
export class OutputEvents {
  readonly #emit: (stream: OutputStream, bytes: Uint8Array) => PromiseLike<void> | undefined;
  readonly #onBehind: (wait: PromiseLike<void>) => void;
  readonly #maxBytes: number;
  readonly #delayMs: number;
  readonly #chars = { stdout: new Utf8Chunks(), stderr: new Utf8Chunks() };
  #stream: OutputStream = 'stdout';
  #staged: Buffer | undefined;
  #bytes = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: {
    emit: (stream: OutputStream, bytes: Uint8Array) => PromiseLike<void> | undefined;
    onBehind: (wait: PromiseLike<void>) => void;
    maxBytes?: number;
    delayMs?: number;
  }) {
    this.#emit = options.emit;
    this.#onBehind = options.onBehind;
    // Under V8's large-object size, so each event's string is a cheap young-generation object.
    this.#maxBytes = options.maxBytes ?? 64 * 1024;
    this.#delayMs = options.delayMs ?? 16;
  }

  push(stream: OutputStream, chunk: Uint8Array): void {
    this.#add(stream, this.#chars[stream].push(chunk));
  }

  /** The stream ended: a character cut off at its very end goes out as it is. */
  end(stream: OutputStream): void {
    this.#add(stream, this.#chars[stream].end());
    this.flush();
  }

  /** Sends what waits now. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#bytes === 0 || !this.#staged) return;
    const bytes = this.#staged.subarray(0, this.#bytes);
    this.#bytes = 0;
    this.#send(this.#stream, bytes);
  }

  #send(stream: OutputStream, bytes: Uint8Array): void {
    const wait = this.#emit(stream, bytes);
    if (wait) this.#onBehind(wait);
  }

  #add(stream: OutputStream, piece: Uint8Array): void {
    if (piece.length === 0) return;
    if (stream !== this.#stream || this.#bytes + piece.length > this.#maxBytes) this.flush();
    this.#stream = stream; // order across the two streams is kept
    if (piece.length >= this.#maxBytes) {
      this.#send(stream, piece); // as large as a whole event already: no copy
      return;
    }
    this.#staged ??= Buffer.allocUnsafe(this.#maxBytes);
    this.#staged.set(piece, this.#bytes);
    this.#bytes += piece.length;
    this.#timer ??= setTimeout(() => this.flush(), this.#delayMs);
  }
}
