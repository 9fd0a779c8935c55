import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/mcp/line-splitter.js';

/** Pushes the pieces; the lines that came out, or 'overflow'. */
function split(pieces: Buffer[], maxBytes = 1 << 20): string[] | 'overflow' {
  const splitter = new LineSplitter(maxBytes);
  const lines: string[] = [];
  for (const piece of pieces) if (!splitter.push(piece, (l) => lines.push(l))) return 'overflow';
  return lines;
}

/** The bytes cut at the given places (inside a UTF-8 character too). */
const cutAt = (bytes: Buffer, cuts: number[]) => {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  return [0, ...at].map((start, i) => bytes.subarray(start, at[i] ?? bytes.length));
};

describe('newline-delimited messages out of a byte stream (the stdio transport)', () => {
  it('Property: however the bytes are cut into reads, the same lines come out, whole, in order', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replaceAll('\n', ' ')),
          {
            maxLength: 8,
          },
        ),
        fc.array(fc.nat(), { maxLength: 12 }),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
          expect(split(cutAt(bytes, cuts))).toEqual(lines);
        },
      ),
      { numRuns: 500, seed: 14 },
    );
  });

  it('a line not ended yet past the bound is refused, also when it ends in the read that passes it', () => {
    expect(split([Buffer.alloc(11, 'a')], 10)).toBe('overflow');
    expect(split([Buffer.alloc(6, 'a'), Buffer.from('aaaaa\n')], 10)).toBe('overflow');
    expect(split([Buffer.alloc(5, 'a'), Buffer.from('aaaa\n')], 10)).toEqual(['aaaaaaaaa']);
    // Complete lines in one read do not count against it: only what is held does.
    expect(split([Buffer.from(`${'a'.repeat(8)}\n`.repeat(5))], 10)).toEqual(Array(5).fill('a'.repeat(8)));
  });

  it('one byte per read: the memory held stays within twice the line, in one buffer', () => {
    const splitter = new LineSplitter(10 * 1024 * 1024);
    const lines: string[] = [];
    for (let i = 0; i < 300_000; i++) splitter.push(Buffer.from('x'), (l) => lines.push(l));
    expect(splitter.capacity).toBeLessThanOrEqual(2 * 300_000);
    splitter.push(Buffer.from('\n{}\n'), (l) => lines.push(l));
    expect(lines).toEqual(['x'.repeat(300_000), '{}']);
    // The big buffer is let go once its line is done.
    expect(splitter.capacity).toBe(0);
  });
});
