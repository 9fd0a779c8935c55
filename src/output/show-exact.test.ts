import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeForTerminal } from './sanitize-terminal.js';
import { capTitle, readShown, showExact } from './show-exact.js';

// Characters that make escaping hard: the escape syntax itself, line marks, controls, invisibles.
const tricky = fc.constantFrom(
  '\\',
  'x',
  'u',
  '{',
  '}',
  '1',
  'b',
  'e',
  '0',
  '2',
  '⏎',
  '⇥',
  '\n',
  '\t',
  '\r',
  '\u001b',
  '\u009b',
  '\u202e',
  '\u200b',
  '\u00a0',
  '\ufeff',
  '\u{e0041}',
  '\ud800',
  '\udfff',
  ' ',
  '😀',
);
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.array(tricky, { maxLength: 40 }).map((a) => a.join('')),
);

describe('showExact (issue #30 §1: shown = run)', () => {
  it.each([
    ['ESC of a colour code', 'a\u001b[31mb', 'a\\x1b[31mb'],
    ['bidi override (Trojan Source)', 'x\u202ey', 'x\\u202ey'],
    ['zero-width space', 'a\u200bb', 'a\\u200bb'],
    ['a tag character (invisible ASCII smuggling)', 'a\u{e0041}', 'a\\u{e0041}'],
    ['no-break space', 'rm\u00a0-rf', 'rm\\xa0-rf'],
    ['lone carriage return', 'safe\rEVIL', 'safe\\x0dEVIL'],
    ['a literal backslash that would read as an escape', 'printf "\\x41"', 'printf "\\x5cx41"'],
    ['an ordinary backslash stays', 'echo "a\\nb" \\', 'echo "a\\nb" \\'],
    ['plain text is unchanged', 'echo api_key=$(touch X)', 'echo api_key=$(touch X)'],
  ])('%s', (_name, input, shown) => {
    expect(showExact(input)).toBe(shown);
    expect(readShown(shown)).toBe(input);
  });

  it('one-line mode shows newline and tab as ⏎ and ⇥, and a literal ⏎ as its escape', () => {
    expect(showExact('a\nb\tc⏎', { oneLine: true })).toBe('a⏎b⇥c\\u23ce');
    expect(readShown('a⏎b⇥c\\u23ce', { oneLine: true })).toBe('a\nb\tc⏎');
  });

  it('for any text, what is shown decodes to exactly the text (both modes)', () => {
    fc.assert(
      fc.property(anyText, fc.boolean(), (text, oneLine) => {
        expect(readShown(showExact(text, { oneLine }), { oneLine })).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('for any text, what is shown has nothing a terminal would act on or hide', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const shown = showExact(text);
        // The removing sanitiser finds nothing left to remove.
        expect(sanitizeForTerminal(shown)).toBe(shown);
        expect(shown).not.toMatch(/[\p{Cf}\p{Cs}\p{Co}\p{Cn}\u00a0\u2028\u2029]/u);
        const line = showExact(text, { oneLine: true });
        expect(line).not.toMatch(/[\n\t\r]/);
      }),
      { numRuns: 1000 },
    );
  });

  it('capTitle: at most 200 characters, says it was cut and by how much, never splits an escape', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 0, max: 400 }), (text, pad) => {
        const shown = showExact(`${'a'.repeat(pad)}${text}`, { oneLine: true });
        const title = capTitle(shown);
        expect(Array.from(title).length).toBeLessThanOrEqual(200);
        if (Array.from(shown).length <= 200) {
          expect(title).toBe(shown);
          return;
        }
        const cut = /^([\s\S]*) … \[cut: (\d+) more characters\]$/u.exec(title);
        expect(cut).not.toBeNull();
        const kept = cut?.[1] as string;
        expect(shown.startsWith(kept)).toBe(true);
        expect(Array.from(kept).length + Number(cut?.[2])).toBe(Array.from(shown).length);
        // What was kept decodes to a prefix of the text: no escape was split.
        expect(text.startsWith(readShown(kept, { oneLine: true }).slice(pad))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
