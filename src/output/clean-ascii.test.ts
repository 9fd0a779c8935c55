import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCleanAscii } from './clean-ascii.js';
import { sanitizeForTerminal } from './sanitize-terminal.js';

const reference = (b: Uint8Array) => b.every((x) => x === 9 || x === 10 || (x >= 0x20 && x < 0x7f));

describe('isCleanAscii: the fast path that skips terminal sanitizing', () => {
  it('Property: agrees byte for byte with the plain definition, at any offset into a buffer', () => {
    // Mostly clean bytes with the borderline ones (0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff) mixed in.
    const byte = fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.constantFrom(9, 10, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff, 0),
      fc.integer({ min: 0, max: 255 }),
    );
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 64 }), fc.nat(7), (bytes, offset) => {
        const backing = new Uint8Array(bytes.length + offset);
        backing.set(bytes, offset);
        const view = backing.subarray(offset);
        expect(isCleanAscii(view)).toBe(reference(view));
      }),
      { numRuns: 20000 },
    );
  });

  it('every 4-byte word over the borderline byte values, at every alignment', () => {
    const values = [0, 9, 10, 0x1f, 0x20, 0x41, 0x7e, 0x7f, 0x80, 0xff];
    const backing = new Uint8Array(12);
    for (const a of values)
      for (const b of values)
        for (const c of values)
          for (const d of values)
            for (const offset of [0, 1, 2, 3]) {
              backing.fill(0x41);
              backing.set([a, b, c, d], offset + 4);
              const view = backing.subarray(offset, offset + 8);
              expect(isCleanAscii(view)).toBe(reference(view));
            }
  });

  it('Property: whatever it calls clean, sanitizing leaves unchanged', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        if (isCleanAscii(bytes)) {
          const text = Buffer.from(bytes).toString('latin1');
          expect(sanitizeForTerminal(text)).toBe(text);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses escapes, carriage returns, DEL, C1 and any UTF-8 (bidi overrides included)', () => {
    for (const s of ['\u001b[31mred', 'a\rb', 'x\u007f', '\u202eevil', 'café', '\u009b1m']) {
      expect(isCleanAscii(Buffer.from(s, 'utf8')), JSON.stringify(s)).toBe(false);
    }
    expect(isCleanAscii(Buffer.from('line 1\n\tline 2\n', 'utf8'))).toBe(true);
  });
});
