import { describe, expect, it } from 'vitest';
import { displayWidth, fitLine, type Segment } from './fit-line.js';

const segments: Segment[] = [
  { text: 'openai-compatible', priority: 3, cut: true },
  { text: 'session 0f8e4b2a', priority: 7 },
  { text: 'enter send', priority: 10 },
  { text: '/help keys and commands', short: '/help', priority: 9 },
  { text: 'ctrl+c or /quit leave', short: 'ctrl+c quit', priority: 6 },
];

describe('fitLine', () => {
  it('keeps everything, long forms, when it fits', () => {
    const line = fitLine(segments, 200);
    expect(line).toBe(
      'openai-compatible · session 0f8e4b2a · enter send · /help keys and commands · ctrl+c or /quit leave',
    );
  });

  it('never exceeds the width, at every width; the most needed hint stays', () => {
    for (let width = 1; width <= 120; width++) {
      const line = fitLine(segments, width);
      expect(displayWidth(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
      if (width >= 10) expect(line).toContain('enter send');
      else expect(line).toBe(`${'enter send'.slice(0, width - 1)}…`);
    }
  });

  it('shortens before it leaves out, and leaves out the least needed first, keeping the order', () => {
    expect(fitLine(segments, 60)).toBe('session 0f8e4b2a · enter send · /help · ctrl+c quit');
    expect(fitLine(segments, 40)).toBe('session 0f8e4b2a · enter send · /help');
    expect(fitLine(segments, 20)).toBe('enter send · /help');
  });

  it('cuts a cuttable segment to the room left, with an ellipsis, rather than dropping it', () => {
    const parts: Segment[] = [
      { text: 'a-very-long-model-name-indeed', priority: 3, cut: true },
      { text: 'enter send', priority: 10 },
    ];
    expect(fitLine(parts, 30)).toBe('a-very-long-mode… · enter send');
    // Too little room to say anything (fewer than 8 columns): left out.
    expect(fitLine(parts, 20)).toBe('enter send');
  });

  it('counts wide characters as two columns', () => {
    expect(displayWidth('模型')).toBe(4);
    expect(displayWidth('é')).toBe(1);
    const line = fitLine(
      [
        { text: '模型模型模型', priority: 1, cut: true },
        { text: 'enter send', priority: 10 },
      ],
      22,
    );
    expect(displayWidth(line)).toBeLessThanOrEqual(22);
    expect(line).toBe('模型模型… · enter send');
  });

  it('even the most needed segment is cut when nothing else fits', () => {
    expect(fitLine(segments, 6)).toBe('enter…');
  });
});
