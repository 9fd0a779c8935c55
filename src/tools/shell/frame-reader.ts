/**
 * Splits one stream of a persistent shell by the markers the shell prints around each command:
 * `\0MARKER` + `B` where the command's output begins (anything before it, such as bytes a killed
 * leftover wrote, is dropped) and `\0MARKER…\0` where it ends. The bytes between are the command's
 * output, handed on as they come; those between the end marker and the closing NUL are the
 * frame's trailer (exit status, pid, directory). The marker is random per command and is NUL
 * followed by hex digits, so a partial marker can only begin at the last NUL of what has arrived:
 * only that much is held back. After the frame nothing is taken.
 */
export class FrameReader {
  readonly #begin: Buffer | undefined;
  readonly #end: Buffer;
  readonly #onData: (chunk: Uint8Array) => void;
  readonly #onFrame: (trailer: string) => void;
  #held: Buffer | undefined;
  #phase: 'begin' | 'output' | 'trailer' | 'done';

  constructor(
    marker: string,
    onData: (chunk: Uint8Array) => void,
    onFrame: (trailer: string) => void,
    options: { begin?: boolean } = {},
  ) {
    if (!/^[0-9a-f]{8,}$/.test(marker)) throw new Error('a frame marker is hex digits');
    this.#end = Buffer.from(`\0${marker}`, 'latin1');
    this.#begin = options.begin ? Buffer.from(`\0${marker}B`, 'latin1') : undefined;
    this.#phase = options.begin ? 'begin' : 'output';
    this.#onData = onData;
    this.#onFrame = onFrame;
  }

  get done(): boolean {
    return this.#phase === 'done';
  }

  push(chunk: Uint8Array): void {
    if (this.#phase === 'done' || chunk.length === 0) return;
    let buf = this.#held
      ? Buffer.concat([this.#held, chunk])
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    this.#held = undefined;
    if (this.#phase === 'begin') {
      const begin = this.#begin as Buffer;
      const at = buf.indexOf(begin);
      if (at === -1) {
        this.#holdPartial(buf, begin, false);
        return;
      }
      buf = buf.subarray(at + begin.length);
      this.#phase = 'output';
    }
    if (this.#phase === 'output') {
      const at = buf.indexOf(this.#end);
      if (at === -1) {
        this.#holdPartial(buf, this.#end, true);
        return;
      }
      if (at > 0) this.#onData(buf.subarray(0, at));
      buf = buf.subarray(at + this.#end.length);
      this.#phase = 'trailer';
    }
    const end = buf.indexOf(0);
    // A directory name is at most PATH_MAX: a trailer longer than that is not one of ours; end it.
    if (end === -1 && buf.length <= 8192) {
      this.#held = Buffer.from(buf);
      return;
    }
    this.#phase = 'done';
    this.#onFrame(buf.subarray(0, end === -1 ? 8192 : end).toString('utf8'));
  }

  /** Hands on (or drops) what cannot be part of `marker`; keeps a copy of a possible start of it. */
  #holdPartial(buf: Buffer, marker: Buffer, handOn: boolean): void {
    const from = buf.lastIndexOf(0);
    const tail = from === -1 ? undefined : buf.subarray(from);
    if (tail && tail.length < marker.length && marker.subarray(0, tail.length).equals(tail)) {
      if (handOn && from > 0) this.#onData(buf.subarray(0, from));
      this.#held = Buffer.from(tail); // the caller may reuse its buffer: keep a copy
    } else if (handOn) {
      this.#onData(buf);
    }
  }
}
