/**
 * Splits one stream of a persistent shell at the end-of-command frame `\0MARKER…\0`: the bytes
 * before it are the command's output (handed on as they come), the bytes between the marker and the
 * closing NUL are the frame's trailer (exit status, pid, directory). The marker is random per
 * command and starts with NUL followed by hex digits, so a partial marker can only begin at the
 * last NUL of what has arrived: only that much is held back. After the frame nothing is taken.
 */
export class FrameReader {
  readonly #marker: Buffer;
  readonly #onData: (chunk: Uint8Array) => void;
  readonly #onFrame: (trailer: string) => void;
  #held: Buffer | undefined;
  #inTrailer = false;
  #done = false;

  constructor(marker: string, onData: (chunk: Uint8Array) => void, onFrame: (trailer: string) => void) {
    if (!/^[0-9a-f]{8,}$/.test(marker)) throw new Error('a frame marker is hex digits');
    this.#marker = Buffer.from(`\0${marker}`, 'latin1');
    this.#onData = onData;
    this.#onFrame = onFrame;
  }

  get done(): boolean {
    return this.#done;
  }

  push(chunk: Uint8Array): void {
    if (this.#done || chunk.length === 0) return;
    let buf = this.#held
      ? Buffer.concat([this.#held, chunk])
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    this.#held = undefined;
    if (!this.#inTrailer) {
      const at = buf.indexOf(this.#marker);
      if (at === -1) {
        const from = buf.lastIndexOf(0);
        const tail = from === -1 ? undefined : buf.subarray(from);
        if (tail && tail.length < this.#marker.length && this.#marker.subarray(0, tail.length).equals(tail)) {
          if (from > 0) this.#onData(buf.subarray(0, from));
          this.#held = Buffer.from(tail); // the caller may reuse its buffer: keep a copy
        } else {
          this.#onData(buf);
        }
        return;
      }
      if (at > 0) this.#onData(buf.subarray(0, at));
      buf = buf.subarray(at + this.#marker.length);
      this.#inTrailer = true;
    }
    const end = buf.indexOf(0);
    // A directory name is at most PATH_MAX: a trailer longer than that is not one of ours; end it.
    if (end === -1 && buf.length <= 8192) {
      this.#held = Buffer.from(buf);
      return;
    }
    this.#done = true;
    this.#onFrame(buf.subarray(0, end === -1 ? 8192 : end).toString('utf8'));
  }
}
