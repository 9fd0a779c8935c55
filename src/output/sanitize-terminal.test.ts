import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeForTerminal } from './sanitize-terminal.js';

const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('sanitizeForTerminal (T-OUT-02)', () => {
  it.each([
    ['CSI colour', 'a\u001b[31mred\u001b[0m b', 'ared b'],
    ['CSI cursor movement and erase', 'x\u001b[2J\u001b[1;1Hy', 'xy'],
    ['OSC title with BEL', '\u001b]0;pwned\u0007text', 'text'],
    ['OSC 52 clipboard write with ST', 'a\u001b]52;c;cm0gLXJmIC8=\u001b\\b', 'ab'],
    ['OSC 8 hyperlink', '\u001b]8;;http://evil\u001b\\click\u001b]8;;\u001b\\', 'click'],
    ['unterminated OSC runs to the end', 'ok\u001b]52;c;AAAA', 'ok'],
    ['DCS string', 'a\u001bPq#0;2;0;0;0\u001b\\b', 'ab'],
    ['8-bit CSI', 'a\u009b31mb', 'ab'],
    ['8-bit OSC', 'a\u009d0;t\u0007b', 'ab'],
    ['bell, backspace, NUL', 'a\u0007\u0008\u0000b', 'ab'],
    ['lone carriage return (line overwrite)', 'safe\rEVIL', 'safeEVIL'],
    ['CRLF becomes LF', 'a\r\nb', 'a\nb'],
    ['bidi override (Trojan Source)', 'a\u202eb\u2066c\u2069', 'abc'],
    ['keeps newline and tab', 'a\n\tb', 'a\n\tb'],
    ['keeps printable unicode', 'héllo 世界 🎉', 'héllo 世界 🎉'],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeForTerminal(input)).toBe(expected);
  });

  it('no control character ever survives, for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const out = sanitizeForTerminal(text);
        expect(FORBIDDEN.test(out)).toBe(false);
        expect(out.includes('\u001b')).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('printable text without controls passes unchanged', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ -~\n\t]*$/), (text) => {
        expect(sanitizeForTerminal(text)).toBe(text);
      }),
    );
  });
});
