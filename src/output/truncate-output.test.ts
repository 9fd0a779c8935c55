import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countLines, cutToBytes, truncateOutput, utf8Length } from './truncate-output.js';

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
    expect(truncateOutput('hello', 5)).toEqual({
      text: 'hello',
      truncated: false,
      omittedBytes: 0,
      omittedLines: 0,
    });
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
          if (!match) {
            // A limit too small for the marker: the start of the marker, naming every byte as omitted.
            const whole = `\n\n... [output truncated: ${utf8Length(text)} bytes omitted]`;
            expect(limit).toBeLessThanOrEqual(utf8Length(whole));
            expect(whole.startsWith(out.text)).toBe(true);
            return;
          }
          const body = out.text.slice(0, match.index);
          expect(text.startsWith(body)).toBe(true);
          expect(Number(match[1])).toBe(utf8Length(text) - utf8Length(body));
          expect(out.omittedBytes).toBe(utf8Length(text) - utf8Length(body));
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

/** Lines counted independently of the implementation: a trailing `\n` ends a line, it starts none. */
function linesOf(text: string): number {
  if (text === '') return 0;
  const parts = text.split('\n');
  return text.endsWith('\n') ? parts.length - 1 : parts.length;
}

const MARKER = /\.\.\. \[output truncated: (?:(\d+) lines?, )?(\d+) bytes omitted\]$/;

/** Text of many short lines: newlines, CRLF, empty lines, multi-byte characters. */
const linesText = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.constantFrom('', '\r', 'é', '😀😀', 'x'.repeat(60)),
    ),
    { maxLength: 60 },
  )
  .chain((parts) => fc.constantFrom(parts.join('\n'), `${parts.join('\n')}\n`));

describe('truncateOutput with max_lines', () => {
  it('countLines: a trailing newline ends a line, it does not start one', () => {
    expect([
      countLines(''),
      countLines('a'),
      countLines('a\n'),
      countLines('a\nb'),
      countLines('\n\n'),
    ]).toEqual([0, 1, 1, 2, 2]);
    fc.assert(
      fc.property(linesText, (text) => {
        expect(countLines(text)).toBe(linesOf(text));
      }),
    );
  });

  it('Property 43: output over maxLines or max bytes is cut within both limits, marker included, saying how many lines and bytes were omitted', () => {
    // Seed 001's maxChars is `max_bytes` (seed 000 FR-OUT-04a: UTF-8 bytes, the marker inside the
    // limit, DESIGN §3); its maxLines is `max_lines`, with the marker inside that limit too.
    fc.assert(
      fc.property(
        linesText,
        fc.integer({ min: 0, max: 700 }),
        fc.integer({ min: 1, max: 40 }),
        (text, limit, maxLines) => {
          const out = truncateOutput(text, limit, maxLines);
          expect(utf8Length(out.text)).toBeLessThanOrEqual(limit);
          expect(linesOf(out.text)).toBeLessThanOrEqual(maxLines);
          if (utf8Length(text) <= limit && linesOf(text) <= maxLines) {
            expect(out).toEqual({ text, truncated: false, omittedBytes: 0, omittedLines: 0 });
            return;
          }
          expect(out.truncated).toBe(true);
          // The marker sits on its own line after a blank one, or higher up under a 1–2 line limit.
          const sep = '\n'.repeat(Math.min(2, maxLines - 1));
          const match = MARKER.exec(out.text);
          if (!match) {
            // A limit too small for the marker: the start of the marker, naming everything as omitted.
            const all = linesOf(text);
            const named = all > 0 ? `${all} line${all === 1 ? '' : 's'}, ` : '';
            const whole = `${sep}... [output truncated: ${named}${utf8Length(text)} bytes omitted]`;
            expect(limit).toBeLessThanOrEqual(utf8Length(whole));
            expect(whole.startsWith(out.text)).toBe(true);
            return;
          }
          const before = out.text.slice(0, match.index);
          expect(before.endsWith(sep)).toBe(true);
          const body = before.slice(0, before.length - sep.length);
          expect(text.startsWith(body)).toBe(true);
          const omittedBytes = utf8Length(text) - utf8Length(body);
          const omittedLines = linesOf(text) - linesOf(body);
          expect(Number(match[2])).toBe(omittedBytes);
          expect(Number(match[1] ?? 0)).toBe(omittedLines);
          expect(out.omittedBytes).toBe(omittedBytes);
          expect(out.omittedLines).toBe(omittedLines);
          // Cut at the limit, not before it: the line limit is reached, or the bytes nearly are
          // (the room kept for the marker's longest counts is a few bytes more than it uses).
          expect(linesOf(out.text) === maxLines || utf8Length(out.text) > limit - 20).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('without max_lines the output is byte-for-byte what the bytes limit alone gives', () => {
    fc.assert(
      fc.property(linesText, fc.integer({ min: 0, max: 700 }), (text, limit) => {
        const out = truncateOutput(text, limit, Number.POSITIVE_INFINITY);
        expect(truncateOutput(text, limit)).toEqual(out);
        expect(out.omittedLines).toBe(0);
        if (out.truncated && limit >= 100)
          expect(out.text).toMatch(/\n\n\.\.\. \[output truncated: \d+ bytes omitted\]$/);
      }),
    );
  });

  it('keeps the first lines, then a blank line and the marker, all within max_lines', () => {
    const numbers = Array.from({ length: 100 }, (_, i) => `${i + 1}`);
    const text = `${numbers.join('\n')}\n`;
    const kept = numbers.slice(0, 8).join('\n');
    const out = truncateOutput(text, 10_000, 10);
    const omitted = utf8Length(text) - utf8Length(kept);
    expect(out.text).toBe(`${kept}\n\n... [output truncated: 92 lines, ${omitted} bytes omitted]`);
    expect(out.text.split('\n')).toHaveLength(10);
    expect(out).toMatchObject({ truncated: true, omittedLines: 92, omittedBytes: omitted });
  });

  it('a 2-line limit keeps the first line; a 1-line limit puts the marker right after the line', () => {
    const text = 'alpha\nbeta\ngamma';
    expect(truncateOutput(text, 1000, 2).text).toBe(
      'alpha\n... [output truncated: 2 lines, 11 bytes omitted]',
    );
    expect(truncateOutput(text, 1000, 1).text).toBe('alpha... [output truncated: 2 lines, 11 bytes omitted]');
    expect(truncateOutput(text, 1000, 3)).toMatchObject({ text, truncated: false });
  });

  it('the bytes limit still applies with a line limit, the line count then names whole lines only', () => {
    const text = `${'a'.repeat(300)}\n${'b'.repeat(300)}\n${'c'.repeat(300)}`;
    const out = truncateOutput(text, 200, 50);
    expect(utf8Length(out.text)).toBeLessThanOrEqual(200);
    const body = out.text.slice(0, out.text.indexOf('\n\n...'));
    expect(body).toMatch(/^a+$/);
    // The first line is cut part-way (kept), the other two are omitted whole.
    expect(out.text).toMatch(/\[output truncated: 2 lines, \d+ bytes omitted\]$/);
    expect(out.omittedBytes).toBe(utf8Length(text) - body.length);
  });

  it('the marker needs room too: text within max_lines but over the bytes limit loses lines for it', () => {
    const text = 'one\ntwo\nthree\nfour\n'.repeat(50); // 200 lines, 950 bytes
    const out = truncateOutput(text, 900, 200);
    expect(utf8Length(out.text)).toBeLessThanOrEqual(900);
    expect(linesOf(out.text)).toBeLessThanOrEqual(200);
    expect(out.omittedLines).toBeGreaterThan(0);
  });
});
