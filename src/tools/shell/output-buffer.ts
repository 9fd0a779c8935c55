/**
 * Keeps a stream's output in constant memory: the first `head` bytes and the last `tail` bytes;
 * the middle is counted and dropped. A command that prints a gigabyte costs at most head + tail.
 */
export class HeadTailBuffer {
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #dropped = 0;
  #total = 0;

  constructor(
    private readonly headLimit: number,
    private readonly tailLimit: number,
  ) {}

  get total(): number {
    return this.#total;
  }

  get dropped(): number {
    return this.#dropped;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.#headBytes, rest.length);
      this.#head.push(rest.subarray(0, take));
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.#tail.push(rest);
    this.#tailBytes += rest.length;
    // Trim the tail back to its limit; whole chunks first, then the front of the oldest one.
    while (this.#tailBytes > this.tailLimit && this.#tail.length > 0) {
      const oldest = this.#tail[0] as Buffer;
      const excess = this.#tailBytes - this.tailLimit;
      if (oldest.length <= excess) {
        this.#tail.shift();
        this.#tailBytes -= oldest.length;
        this.#dropped += oldest.length;
      } else {
        // Copy, so the big original chunk can be freed.
        this.#tail[0] = Buffer.from(oldest.subarray(excess));
        this.#tailBytes -= excess;
        this.#dropped += excess;
      }
    }
  }

  /** The kept text, with a marker where the middle was dropped. */
  text(): string {
    const head = Buffer.concat(this.#head).toString('utf8');
    const tail = Buffer.concat(this.#tail).toString('utf8');
    if (this.#dropped === 0) return head + tail;
    return `${head}\n... [${this.#dropped} bytes of output omitted] ...\n${tail}`;
  }
}
