import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sniffBinary } from './sniff-binary.js';

/** The definition: a NUL byte, or bytes a fatal (streaming, unless whole) UTF-8 decoder rejects. */
function reference(sample: Uint8Array, isWholeFile: boolean): boolean {
  if (sample.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: !isWholeFile });
    return false;
  } catch {
    return true;
  }
}

// Text cut anywhere, with stray bytes spliced in: the cases where a cut character and a broken one differ.
const nearlyText = fc
  .tuple(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.nat(),
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0x80, max: 0xff })), { maxLength: 2 }),
  )
  .map(([text, cut, strays]) => {
    const bytes = [...Buffer.from(text, 'utf8')];
    for (const [at, byte] of strays) bytes.splice(bytes.length ? at % bytes.length : 0, 0, byte);
    return Uint8Array.from(bytes.slice(0, bytes.length ? cut % (bytes.length + 1) : 0));
  });

describe('sniffBinary (FR-TOOL-READ-01)', () => {
  it('answers as a fatal streaming TextDecoder does, for any bytes', () => {
    fc.assert(
      fc.property(fc.oneof(nearlyText, fc.uint8Array({ maxLength: 12 })), fc.boolean(), (sample, whole) => {
        expect(sniffBinary(sample, whole)).toBe(reference(sample, whole));
      }),
      { numRuns: 20_000 },
    );
  });

  it('every ending of one or two bytes, and every three-byte ending that starts a character, exhaustively', () => {
    const check = (tail: number[]) => {
      const sample = Uint8Array.from([0x61, ...tail]);
      for (const whole of [true, false]) {
        if (sniffBinary(sample, whole) !== reference(sample, whole))
          expect.fail(`differs for ${Buffer.from(sample).toString('hex')} (whole: ${whole})`);
      }
    };
    for (let a = 0; a < 256; a++) {
      check([a]);
      for (let b = 0; b < 256; b++) check([a, b]);
    }
    // Each side of every boundary a second or third byte can cross.
    const edges = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff];
    for (let a = 0xc0; a < 256; a++) for (const b of edges) for (const c of edges) check([a, b, c]);
  });

  it('a character cut by the 8 KB sample is text; the same bytes at the end of the file are not', () => {
    const cut = Buffer.from('ab€', 'utf8').subarray(0, 4); // € is 3 bytes: two of them kept
    expect(sniffBinary(cut, false)).toBe(false);
    expect(sniffBinary(cut, true)).toBe(true);
    expect(sniffBinary(Buffer.from([0x61, 0xe0, 0x80]), false)).toBe(true); // an overlong start is never text
  });
});
