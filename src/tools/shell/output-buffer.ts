/**
 * Keeps a stream's output in constant memory: the first `head` bytes and the last `tail` bytes;
 * the middle is counted and dropped. A command that prints a gigabyte costs at most head + tail.
 * The end is copied into a ring of `tail` bytes rather than kept as the chunks that brought it:
 * a chunk held for a while outlives the young generation and makes V8 collect the old one, which
 * for a gigabyte of small reads cost more than the copying.
 */
export class HeadTailBuffer {
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  /** Made when output first goes past the head; `#ringEnd` is where the next byte goes. */
  #ring: Buffer | undefined;
  #ringEnd = 0;
  #ringFill = 0;
  #total = 0;

  constructor(
    private readonly headLimit: number,
    private readonly tailLimit: number,
  ) {}

  get total(): number {
    return this.#total;
  }

  /** Bytes held right now: never more than the two limits. */
  get heldBytes(): number {
    return this.#headBytes + (this.#ring?.length ?? 0);
  }

  get dropped(): number {
    return this.#total - this.#headBytes - this.#ringFill;
  }

  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.#headBytes, rest.length);
      this.#head.push(Buffer.from(rest.subarray(0, take))); // a copy: the read's buffer is not kept
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    const size = this.tailLimit;
    this.#ring ??= Buffer.allocUnsafe(size);
    const piece = rest.length > size ? rest.subarray(rest.length - size) : rest;
    const first = Math.min(piece.length, size - this.#ringEnd);
    this.#ring.set(piece.subarray(0, first), this.#ringEnd);
    if (first < piece.length) this.#ring.set(piece.subarray(first), 0);
    this.#ringEnd = (this.#ringEnd + piece.length) % size;
    this.#ringFill = Math.min(size, this.#ringFill + piece.length);
  }

  /** The kept text, with a marker where the middle was dropped. */
  text(): string {
    const head = Buffer.concat(this.#head).toString('utf8');
    const ring = this.#ring;
    // Until the ring is full it has never wrapped: its bytes run from 0 to the fill.
    const kept = !ring
      ? Buffer.alloc(0)
      : this.#ringFill < this.tailLimit
        ? ring.subarray(0, this.#ringFill)
        : Buffer.concat([ring.subarray(this.#ringEnd), ring.subarray(0, this.#ringEnd)]);
    const tail = kept.toString('utf8');
    if (this.dropped === 0) return head + tail;
    return `${head}\n... [${this.dropped} bytes of output omitted] ...\n${tail}`;
  }
}
