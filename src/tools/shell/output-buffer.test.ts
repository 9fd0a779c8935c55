import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeadTailBuffer } from './output-buffer.js';

describe('HeadTailBuffer', () => {
  it('Property: keeps exactly the first and last bytes of any chunking, counts the rest, never holds more than the two limits', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 50 }), { maxLength: 30 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        (chunks, headLimit, tailLimit) => {
          // ASCII bytes, so the decoded text can be compared byte for byte.
          const ascii = chunks.map((c) => Buffer.from(c.map((b) => 0x21 + (b % 90))));
          const buffer = new HeadTailBuffer(headLimit, tailLimit);
          for (const c of ascii) {
            buffer.push(c);
            expect(buffer.heldBytes).toBeLessThanOrEqual(headLimit + tailLimit);
          }
          const all = Buffer.concat(ascii).toString('latin1');
          const head = all.slice(0, headLimit);
          const rest = all.slice(head.length);
          const tail = rest.slice(Math.max(0, rest.length - tailLimit));
          const dropped = rest.length - tail.length;
          expect(buffer.total).toBe(all.length);
          expect(buffer.dropped).toBe(dropped);
          expect(buffer.text()).toBe(
            dropped === 0 ? all : `${head}\n... [${dropped} bytes of output omitted] ...\n${tail}`,
          );
        },
      ),
      { numRuns: 1000 },
    );
  });
});
