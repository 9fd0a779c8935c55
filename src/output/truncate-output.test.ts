import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutToBytes, truncateOutput, utf8Length } from './truncate-output.js';

describe('truncateOutput', () => {
  it('T-OUT-01: the marker is included within the effective limit', () => {
    const text = 'x'.repeat(1000);
    const out = truncateOutput(text, 100);
    expect(out.truncated).toBe(true);
    expect(utf8Length(out.text)).toBeLessThanOrEqual(100);
    expect(out.text).toMatch(/\[output truncated: \d+ bytes omitted\]$/);
    expect(out.text.startsWith('x')).toBe(true);
  });

  it('leaves text under the limit untouched', () => {
    expect(truncateOutput('hello', 5)).toEqual({ text: 'hello', truncated: false, omittedBytes: 0 });
  });

  it('never splits a multi-byte character', () => {
    const out = truncateOutput('é'.repeat(200), 71);
    expect(out.text).not.toContain('\uFFFD');
    expect(utf8Length(out.text)).toBeLessThanOrEqual(71);
  });

  it('a limit smaller than the marker yields a cut marker, still within the limit', () => {
    const out = truncateOutput('y'.repeat(500), 10);
    expect(utf8Length(out.text)).toBeLessThanOrEqual(10);
    expect(out.truncated).toBe(true);
  });

  it('Property 43: output over the limit is cut at the limit and says exactly how much was omitted', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.integer({ min: 0, max: 500 }),
        (text, limit) => {
          const out = truncateOutput(text, limit);
          expect(utf8Length(out.text)).toBeLessThanOrEqual(Math.max(limit, 0));
          if (utf8Length(text) <= limit) {
            expect(out.text).toBe(text);
            return;
          }
          expect(out.truncated).toBe(true);
          const match = /\n\n\.\.\. \[output truncated: (\d+) bytes omitted\]$/.exec(out.text);
          if (match) {
            const body = out.text.slice(0, match.index);
            expect(text.startsWith(body)).toBe(true);
            expect(Number(match[1])).toBe(utf8Length(text) - utf8Length(body));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('cutToBytes keeps a valid prefix', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 100 }), fc.nat(400), (text, n) => {
        const cut = cutToBytes(text, n);
        expect(text.startsWith(cut)).toBe(true);
        expect(utf8Length(cut)).toBeLessThanOrEqual(n);
      }),
    );
  });
});
