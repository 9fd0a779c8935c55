import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from './sse-parser.js';

function parseAll(chunks: (string | Uint8Array)[]): SseEvent[] {
  const p = new SseParser();
  const out: SseEvent[] = [];
  for (const c of chunks) out.push(...p.push(c));
  out.push(...p.end());
  return out;
}

describe('SseParser', () => {
  it('reads event names, data lines, comments and blank-line dispatch', () => {
    expect(parseAll([': comment\nevent: ping\ndata: {"a":1}\n\ndata: x\ndata: y\n\n'])).toEqual([
      { event: 'ping', data: '{"a":1}' },
      { data: 'x\ny' },
    ]);
  });

  it('handles CRLF framing (Gemini) and a CR split from its LF across chunks', () => {
    expect(parseAll(['data: 1\r', '\n\r\ndata: 2\r\n\r\n'])).toEqual([{ data: '1' }, { data: '2' }]);
  });

  it('dispatches a last event that has no trailing blank line (a recorded Anthropic stream ends so)', () => {
    expect(parseAll(['event: message_stop\ndata: {"type":"message_stop"}'])).toEqual([
      { event: 'message_stop', data: '{"type":"message_stop"}' },
    ]);
  });

  it('keeps a UTF-8 character split across chunks whole', () => {
    const bytes = Buffer.from('data: 30°C ✓\n\n', 'utf8');
    const at = bytes.indexOf(0xb0); // inside "°"
    expect(parseAll([bytes.subarray(0, at), bytes.subarray(at)])).toEqual([{ data: '30°C ✓' }]);
  });

  it('Property: any split of the byte stream gives the same events as reading it whole', () => {
    const event = fc.record({
      name: fc.option(fc.constantFrom('message_start', 'content_block_delta', 'ping'), { nil: undefined }),
      data: fc.array(
        fc.string({ unit: 'grapheme' }).map((s) => s.replace(/[\r\n]/g, '')),
        { minLength: 1, maxLength: 3 },
      ),
      eol: fc.constantFrom('\n', '\r\n', '\r'),
    });
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (events, cuts) => {
          const text = events
            .map(
              (e) =>
                `${e.name ? `event: ${e.name}${e.eol}` : ''}${e.data.map((d) => `data: ${d}${e.eol}`).join('')}${e.eol}`,
            )
            .join('');
          const bytes = Buffer.from(text, 'utf8');
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let last = 0;
          for (const p of points) {
            chunks.push(bytes.subarray(last, p));
            last = p;
          }
          chunks.push(bytes.subarray(last));
          expect(parseAll(chunks)).toEqual(parseAll([text]));
          expect(parseAll([text]).map((e) => e.data)).toEqual(events.map((e) => e.data.join('\n')));
        },
      ),
      { numRuns: 300 },
    );
  });
});
