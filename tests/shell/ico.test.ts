/** The .ico writer and reader (ico.ts), against the bytes Microsoft's ICONDIR/BITMAPINFOHEADER layout gives. */
import { describe, expect, it } from 'vitest';
import { premultiplied, readIco, writeIco } from '../../main/shell/ico.js';

describe('ico', () => {
  it('writes ICONDIR, one ICONDIRENTRY and a 32-bit BITMAPINFOHEADER with the doubled height', () => {
    const bgra = Buffer.alloc(16 * 16 * 4);
    bgra.set([1, 2, 3, 4], 0); // top-left pixel
    const ico = writeIco([{ size: 16, bgra }]);
    expect(ico.subarray(0, 22).toString('hex')).toBe(
      '000001000100' + // reserved, type 1 (icon), 1 image
        '1010' +
        '0000' +
        '0100' +
        '2000' +
        '68040000' +
        '16000000', // 16×16, no palette, 1 plane, 32 bpp, 1128 bytes at 22
    );
    expect(ico.subarray(22, 38).toString('hex')).toBe('28000000' + '10000000' + '20000000' + '0100' + '2000');
    expect(ico.length).toBe(22 + 40 + 1024 + 64);
    // Rows are stored bottom-up: the top-left pixel is the first of the last row.
    expect([...ico.subarray(22 + 40 + 15 * 64, 22 + 40 + 15 * 64 + 4)]).toEqual([1, 2, 3, 4]);
    expect(readIco(ico)).toEqual([{ size: 16, bgra }]);
  });

  it('refuses what is not an .ico', () => {
    expect(() => readIco(Buffer.from('89504e470d0a1a0a', 'hex'))).toThrow(/not an \.ico file/);
  });

  it('premultiplies for Skia N32: half-transparent white becomes half grey', () => {
    expect([...premultiplied(Buffer.from([255, 255, 255, 128, 10, 20, 30, 0]))]).toEqual([
      128, 128, 128, 128, 0, 0, 0, 0,
    ]);
  });
});
