import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FrameReader } from './frame-reader.js';

const MARKER = '0123456789abcdef0123456789abcdef';

/** Feeds `bytes` to a reader in pieces cut at `cuts`, each piece in a reused buffer as pipes do. */
function feed(bytes: Buffer, cuts: number[], begin = false) {
  const data: Buffer[] = [];
  let trailer: string | undefined;
  const reader = new FrameReader(
    MARKER,
    (chunk) => data.push(Buffer.from(chunk)),
    (t) => {
      trailer = t;
    },
    { begin },
  );
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  const scratch = Buffer.alloc(bytes.length + 1);
  for (const to of [...points, bytes.length]) {
    if (to <= from) continue;
    bytes.copy(scratch, 0, from, to);
    reader.push(scratch.subarray(0, to - from));
    scratch.fill(0xee); // the caller reuses its buffer: nothing may be read from it later
    from = to;
  }
  return { data: Buffer.concat(data), trailer, done: reader.done };
}

describe('FrameReader: the end-of-command frame of the session shell (issue #16 §10)', () => {
  it('Property: for any output and any way the pipe cuts it, the output is handed on exactly and the trailer is found', () => {
    const output = fc.array(
      fc.oneof(
        fc.uint8Array({ maxLength: 30 }),
        fc.constantFrom(
          Buffer.from('\0'),
          Buffer.from(`\0${MARKER.slice(0, 10)}`),
          Buffer.from(`\0${'f'.repeat(32)} 0 1 /\0`),
          Buffer.from(`\0\0${MARKER.slice(0, 31)}`),
        ),
      ),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(
        output,
        fc.string({ maxLength: 40 }).filter((s) => !s.includes('\0')),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.uint8Array({ maxLength: 10 }),
        (pieces, trailer, cuts, after) => {
          const out = Buffer.concat(pieces.map((p) => Buffer.from(p)));
          // A real marker inside the output would end it there: the marker is random per command.
          fc.pre(!out.includes(Buffer.from(`\0${MARKER}`)));
          const stream = Buffer.concat([out, Buffer.from(`\0${MARKER}${trailer}\0`), Buffer.from(after)]);
          const r = feed(stream, cuts);
          expect(r.done).toBe(true);
          expect(r.data.equals(out)).toBe(true);
          expect(r.trailer).toBe(trailer);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("Property: with a begin marker, whatever came before it (a leftover's bytes, partial markers) is dropped; the output after it is exact", () => {
    const junk = fc.array(
      fc.oneof(
        fc.uint8Array({ maxLength: 20 }),
        fc.constantFrom(
          Buffer.from(`\0${MARKER}`),
          Buffer.from(`\0${MARKER.slice(0, 7)}`),
          Buffer.from('\0'),
        ),
      ),
      { maxLength: 5 },
    );
    fc.assert(
      fc.property(
        junk,
        fc.uint8Array({ maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (before, out, cuts) => {
          const body = Buffer.from(out);
          fc.pre(!body.includes(Buffer.from(`\0${MARKER}`)));
          // Junk may even hold the end marker (a forged end before the command began): still dropped.
          const stream = Buffer.concat([
            ...before.map((b) => Buffer.from(b)),
            Buffer.from(`\0${MARKER}B`),
            body,
            Buffer.from(`\0${MARKER} 0 1 /\0`),
          ]);
          const r = feed(stream, cuts, true);
          fc.pre(!Buffer.concat(before.map((b) => Buffer.from(b))).includes(Buffer.from(`\0${MARKER}B`)));
          expect(r.done).toBe(true);
          expect(r.data.equals(body)).toBe(true);
          expect(r.trailer).toBe(' 0 1 /');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('without the frame, everything is output and nothing is held back but a possible start of the marker', () => {
    const r = feed(Buffer.from(`plain\0${MARKER.slice(0, 5)}`), []);
    expect(r.done).toBe(false);
    expect(r.trailer).toBeUndefined();
    expect(r.data.toString()).toBe('plain');
    expect(feed(Buffer.from('no nul here'), [3]).data.toString()).toBe('no nul here');
  });

  it('a marker must be hex digits', () => {
    expect(
      () =>
        new FrameReader(
          'not-hex!',
          () => {},
          () => {},
        ),
    ).toThrow(/hex/);
  });
});
