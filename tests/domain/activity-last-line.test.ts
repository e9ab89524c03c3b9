/**
 * The activity row's "last line of output" (domain/activity.ts `lastLineOf`): the last non-empty line, and
 * for a long one its end, because an agent streaming words into one line changes only its end.
 */
import { describe, expect, it } from 'vitest';
import { ACTIVITY_LINE_CHARS, lastLineOf, lineEndOf } from '../../main/domain/activity.js';

describe('lastLineOf', () => {
  it('is the last non-empty line, trimmed', () => {
    expect(lastLineOf('first\nsecond  \n\n  \n')).toBe('second');
    expect(lastLineOf('')).toBe('');
  });

  it('keeps the end of a long line, marked at its front', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const line = lastLineOf(`intro\n${words}`);
    expect(line).toHaveLength(ACTIVITY_LINE_CHARS);
    expect(line.startsWith('…')).toBe(true);
    expect(line.endsWith('word99')).toBe(true);
  });

  it('reads only the end of a megabyte reply', () => {
    expect(lastLineOf(`${'x'.repeat(1024 * 1024)}\nthe end`)).toBe('the end');
  });
});

describe('lineEndOf: what follows the last line (the row is shown trimmed; a live view appends to it)', () => {
  it.each([
    ['word1 word2 word3 ', 'space'],
    ['word1 word2 word3\n', 'break'],
    ['word3  \r\n  ', 'break'],
    ['word1 word2 word3', undefined],
    ['', undefined],
  ])('%j → %s', (text, end) => {
    expect(lineEndOf(text)).toBe(end);
  });
});
