/**
 * Newline-delimited messages out of a byte stream. A line not ended yet is held in one buffer that
 * grows by doubling: each byte is copied once more at most (the SDK's reader concatenated on every
 * read, quadratic in a long line's pieces), and memory stays within twice the bound however small
 * the pieces come (a buffer per piece costs far more than its bytes). Lines are decoded as UTF-8
 * only once whole, so a character split between reads is never broken.
 */
export class LineSplitter {
  readonly #maxBytes: number;
  #held: Buffer | undefined;
  #heldBytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Calls `onLine` for each line this chunk ends, in order; holds the rest. Returns false when the
   * line not ended yet would pass the bound: what was held is dropped, and nothing more is read.
   * `stop` is asked before each line, so a line that closes the connection ends the loop.
   */
  push(chunk: Buffer, onLine: (text: string) => void, stop: () => boolean = () => false): boolean {
    let start = 0;
    let end = chunk.indexOf(10);
    if (this.#heldBytes > 0) {
      if (end === -1) return this.#hold(chunk);
      if (!this.#hold(chunk.subarray(0, end))) return false;
      const line = (this.#held as Buffer).toString('utf8', 0, this.#heldBytes);
      this.#release();
      if (stop()) return true;
      onLine(line);
      start = end + 1;
      end = chunk.indexOf(10, start);
    }
    while (end !== -1) {
      if (stop()) return true;
      onLine(chunk.toString('utf8', start, end));
      start = end + 1;
      end = chunk.indexOf(10, start);
    }
    return start < chunk.length && !stop() ? this.#hold(chunk.subarray(start)) : true;
  }

  /** Bytes of memory held for the line not ended yet (at most twice the bound). */
  get capacity(): number {
    return this.#held?.length ?? 0;
  }

  /** Drops what is held. */
  clear(): void {
    this.#release();
  }

  #hold(bytes: Buffer): boolean {
    const need = this.#heldBytes + bytes.length;
    if (need > this.#maxBytes) {
      this.#release();
      return false;
    }
    if (!this.#held || this.#held.length < need) {
      const grown = Buffer.allocUnsafe(Math.max(need, 2 * (this.#held?.length ?? 0), 4096));
      this.#held?.copy(grown, 0, 0, this.#heldBytes);
      this.#held = grown;
    }
    bytes.copy(this.#held, this.#heldBytes);
    this.#heldBytes = need;
    return true;
  }

  #release(): void {
    // A small buffer is kept for the next partial line; a big one goes (it held one long message).
    if ((this.#held?.length ?? 0) > 65_536) this.#held = undefined;
    this.#heldBytes = 0;
  }
}
