import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiProgressLine, progressParams } from '../../src/mcp/ascii-progress.js';
import { isCleanAscii } from '../../src/output/clean-ascii.js';

// Issue #14 item 7: a command's plain ASCII output goes out as progress without JSON.stringify.
// The line written must be exactly what JSON.stringify would have meant.

const plainChar = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\n', '\t', '"', '\\'),
);
const plainText = fc.array(plainChar, { maxLength: 300 }).map((cs) => cs.join(''));

const notification = (params: object) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/progress',
  params,
});

describe('ascii progress lines', () => {
  it('Property: for any printable-ASCII/tab/newline text, the fast line parses to the same notification', () => {
    fc.assert(
      fc.property(plainText, fc.oneof(fc.string(), fc.integer()), fc.nat(), (text, token, progress) => {
        expect(isCleanAscii(Buffer.from(text, 'latin1'))).toBe(true); // the only text ever marked
        const params = progressParams({ progressToken: token, progress, message: text }, true);
        const line = asciiProgressLine(notification(params) as never);
        expect(line?.endsWith('\n')).toBe(true);
        expect(line?.slice(0, -1)).not.toContain('\n');
        expect(JSON.parse(line as string)).toEqual(
          notification({ progressToken: token, progress, message: text }),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('anything not marked, or not a plain progress notification, goes the ordinary way (undefined)', () => {
    const unmarked = { progressToken: 1, progress: 1, message: 'x' };
    expect(asciiProgressLine(notification(unmarked) as never)).toBeUndefined();
    expect(
      asciiProgressLine(
        notification(progressParams({ progressToken: 1, progress: 1, message: 'é' }, false)) as never,
      ),
    ).toBeUndefined();
    const extra = progressParams({ progressToken: 1, progress: 1, message: 'x' }, true);
    (extra as unknown as Record<string, unknown>).total = 5;
    expect(asciiProgressLine(notification(extra) as never)).toBeUndefined();
    const marked = progressParams({ progressToken: 1, progress: 1, message: 'x' }, true);
    expect(
      asciiProgressLine({ jsonrpc: '2.0', method: 'notifications/message', params: marked } as never),
    ).toBeUndefined();
    expect(asciiProgressLine({ jsonrpc: '2.0', id: 1, result: {} } as never)).toBeUndefined();
  });
});
