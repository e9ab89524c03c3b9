/** The open-question count drawn on the tray icon (BGRA pixels, as nativeImage.toBitmap gives). */
import { describe, expect, it } from 'vitest';
import { badgeBitmap, badgeText } from '../../main/shell/tray-badge.js';

const SIZE = 32;
const pixel = (bitmap: Buffer, x: number, y: number): number[] => [
  ...bitmap.subarray((y * SIZE + x) * 4, (y * SIZE + x) * 4 + 4),
];
const transparent = (): Buffer => Buffer.alloc(SIZE * SIZE * 4);

describe('tray badge', () => {
  it('no open question: the icon unchanged', () => {
    const base = Buffer.alloc(SIZE * SIZE * 4, 0x40);
    expect(badgeBitmap(base, SIZE, 0).equals(base)).toBe(true);
  });

  it('draws an opaque red disc in the lower right with a white glyph, leaving the rest of the icon alone', () => {
    const out = badgeBitmap(transparent(), SIZE, 3);
    const counts = { red: 0, white: 0 };
    for (let y = 0; y < SIZE; y += 1)
      for (let x = 0; x < SIZE; x += 1) {
        const [b, g, r, a] = pixel(out, x, y);
        if (a === 0) continue;
        expect(x >= SIZE / 3 && y >= SIZE / 3).toBe(true);
        if (r === 0xd9 && g === 0x2e && b === 0x2e) counts.red += 1;
        else if (r === 0xff && g === 0xff && b === 0xff) counts.white += 1;
      }
    expect(counts.red).toBeGreaterThan(100);
    expect(counts.white).toBeGreaterThan(10);
    expect(pixel(out, 0, 0)).toEqual([0, 0, 0, 0]);
  });

  it('different counts look different; ten and more show a plus', () => {
    const images = [1, 2, 3, 9, 10, 42].map((n) => badgeBitmap(transparent(), SIZE, n).toString('hex'));
    expect(new Set(images.slice(0, 5)).size).toBe(5);
    expect(images[4]).toBe(images[5]);
    expect(badgeText(12)).toBe('+');
    expect(badgeText(0)).toBeUndefined();
  });
});
