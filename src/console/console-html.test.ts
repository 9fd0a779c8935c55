import { describe, expect, it } from 'vitest';
import { exact } from './console-html.js';

describe('console text (issue #30 §5)', () => {
  it('issue #30 §5: what a person approves is rendered as text: markup escaped, bidi, zero-width and control characters shown as escapes, nothing removed', () => {
    expect(exact('<img src=x onerror="alert(1)">')).toBe('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(exact('a\u202eb\u200bc\u2066d\x1be\u00a0f\u{e0041}g')).toBe(
      'a\\u202eb\\u200bc\\u2066d\\x1be\\xa0f\\u{e0041}g',
    );
    expect(exact('line one\n\tline two & more')).toBe('line one\n\tline two &amp; more');
  });
});
