import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8Chunks } from './utf8-chunks.js';

describe('Utf8Chunks', () => {
  it('Property: any split of valid UTF-8 decodes piece by piece exactly as the whole, with no U+FFFD', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (text, cuts) => {
          const bytes = Buffer.from(text, 'utf8');
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const splitter = new Utf8Chunks();
          let out = '';
          let last = 0;
          for (const p of [...points, bytes.length]) {
            out += Buffer.from(splitter.push(bytes.subarray(last, p))).toString('utf8');
            last = p;
          }
          out += Buffer.from(splitter.end()).toString('utf8');
          expect(out).toBe(bytes.toString('utf8'));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('holds back a split character and passes invalid bytes on unchanged', () => {
    const s = new Utf8Chunks();
    const euro = Buffer.from('€', 'utf8'); // e2 82 ac
    expect([...s.push(Buffer.concat([Buffer.from('a'), euro.subarray(0, 2)]))]).toEqual([0x61]);
    expect(Buffer.from(s.push(euro.subarray(2))).toString('utf8')).toBe('€');
    expect([...s.push(Uint8Array.from([0x80, 0x80]))]).toEqual([0x80, 0x80]);
    expect([...s.end()]).toEqual([]);
  });
});
