import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstSentence, fitWords } from './tools-command.js';

describe('toolgate tools: descriptions', () => {
  it('the first sentence ends at a real sentence end, not inside "e.g."', () => {
    expect(firstSentence('Find files whose paths match a glob pattern (e.g. "src/**/*.ts"). Sorted.')).toBe(
      'Find files whose paths match a glob pattern (e.g. "src/**/*.ts")',
    );
    expect(firstSentence('Read a file. Binary files come back as base64.')).toBe('Read a file');
    expect(firstSentence('One sentence only.')).toBe('One sentence only');
    expect(firstSentence('Version 1.2 is fine. Next')).toBe('Version 1.2 is fine');
  });

  it('fitting to a width cuts between words, never mid-word, and never exceeds the width', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z]{1,12}$/), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 2, max: 120 }),
        (words, width) => {
          const text = words.join(' ');
          const fitted = fitWords(text, width);
          expect(fitted.length).toBeLessThanOrEqual(width);
          if (text.length <= width) {
            expect(fitted).toBe(text);
            return;
          }
          expect(fitted.endsWith('…')).toBe(true);
          const kept = fitted.slice(0, -1).split(' ');
          // whole words only, unless a single first word is longer than the width
          if (kept.length > 1) for (const w of kept) expect(words).toContain(w);
        },
      ),
      { numRuns: 300 },
    );
  });
});
