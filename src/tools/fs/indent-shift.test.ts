import { describe, expect, it } from 'vitest';
import { applyShift, commonShift, describeIndent, firstIndentDifference } from './indent-shift.js';

describe('indent-shift (issue #30 §1)', () => {
  it('finds the one prefix that moves every shown line onto the file, blank lines aside', () => {
    expect(commonShift(['\tif x:', '', '\t    y  '], ['if x:', '   ', '    y'])).toEqual({
      add: '\t',
      remove: '',
    });
    expect(commonShift(['if x:', '  y'], ['    if x:', '      y'])).toEqual({ add: '', remove: '    ' });
    expect(commonShift(['a', 'b'], ['a', 'b'])).toEqual({ add: '', remove: '' });
  });

  it('refuses lines whose indentation relative to each other differs, or a blank against a line', () => {
    expect(commonShift(['    if x:', '        y'], ['if x:', 'y'])).toBeUndefined();
    expect(commonShift(['\tif x:'], ['    if x:'])).toBeUndefined();
    expect(commonShift(['', 'a'], ['b', 'a'])).toBeUndefined();
    expect(firstIndentDifference(['    if x:', '        y'], ['if x:', 'y'])).toEqual({
      index: 1,
      file: '        y',
      shown: 'y',
    });
  });

  it('moves a text as one block, or says it cannot', () => {
    expect(applyShift('a\n  b\n\n', { add: '  ', remove: '' })).toBe('  a\n    b\n\n');
    expect(applyShift('    a\n      b', { add: '', remove: '    ' })).toBe('a\n  b');
    expect(applyShift('    a\n  b', { add: '', remove: '    ' })).toBeUndefined();
    expect(describeIndent('\t\t  x')).toBe('2 tabs and 2 spaces');
    expect(describeIndent('x')).toBe('no indentation');
  });
});
