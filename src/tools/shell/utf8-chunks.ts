/**
 * Cuts a byte stream into pieces that end on whole UTF-8 characters: a character split across two
 * reads of a pipe is held back and sent with the next piece, so a UI never shows U+FFFD for it.
 */
const EMPTY = new Uint8Array(0);

export class Utf8Chunks {
  #held: Uint8Array = EMPTY;

  push(chunk: Uint8Array): Uint8Array {
    const bytes = this.#held.length ? Buffer.concat([this.#held, chunk]) : chunk;
    const cut = bytes.length - incompleteTail(bytes);
    // A copy of the (at most 3) held bytes: the caller may reuse the buffer it passed in.
    this.#held = cut === bytes.length ? EMPTY : Uint8Array.from(bytes.subarray(cut));
    return bytes.subarray(0, cut);
  }

  /** Whatever is still held (an unfinished character at the very end of the stream). */
  end(): Uint8Array {
    const rest = this.#held;
    this.#held = EMPTY;
    return rest;
  }
}

/** How many bytes at the end begin a character that is not complete yet (0 to 3). */
function incompleteTail(bytes: Uint8Array): number {
  const n = bytes.length;
  // Walk back over at most 3 continuation bytes to the lead byte.
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back] as number;
    if ((b & 0xc0) === 0x80) continue; // continuation byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0; // only continuation bytes: not ours to fix, passed on as they are
}
