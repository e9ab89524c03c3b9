/**
 * The count of open questions drawn onto the tray icon, so a question is not lost when the toast was
 * dropped (Do Not Disturb, Focus) and the icon sits in the overflow. Windows has no overlay for tray icons
 * (`BrowserWindow.setOverlayIcon` is for taskbar buttons), so the image itself carries it.
 *
 * Pure, on raw B G R A pixels of one size: an entry of the shipped .ico (ico.ts), drawn at each size the tray
 * may need (tray.ts). Badge pixels are opaque, so straight and premultiplied alpha agree on them.
 */

/** 3×5 glyphs, one string per row; `+` stands for ten and more (the tooltip and menu give the exact count). */
const GLYPHS: Record<string, string[]> = {
  '1': ['.#.', '##.', '.#.', '.#.', '###'],
  '2': ['##.', '..#', '.#.', '#..', '###'],
  '3': ['##.', '..#', '.#.', '..#', '##.'],
  '4': ['#.#', '#.#', '###', '..#', '..#'],
  '5': ['###', '#..', '##.', '..#', '##.'],
  '6': ['.##', '#..', '###', '#.#', '###'],
  '7': ['###', '..#', '.#.', '.#.', '.#.'],
  '8': ['###', '#.#', '###', '#.#', '###'],
  '9': ['###', '#.#', '###', '..#', '##.'],
  '+': ['...', '.#.', '###', '.#.', '...'],
};

const BADGE_BGRA = [0x2e, 0x2e, 0xd9, 0xff]; // red
const TEXT_BGRA = [0xff, 0xff, 0xff, 0xff]; // white

export function badgeText(count: number): string | undefined {
  if (count <= 0) return undefined;
  return count > 9 ? '+' : String(count);
}

/** A copy of the `size`×`size` BGRA bitmap with a red disc and the count in its lower right quarter. */
export function badgeBitmap(base: Buffer, size: number, count: number): Buffer {
  const text = badgeText(count);
  const out = Buffer.from(base);
  if (!text) return out;
  const put = (x: number, y: number, bgra: number[]): void => {
    if (x < 0 || y < 0 || x >= size || y >= size) return;
    out.set(bgra, (y * size + x) * 4);
  };
  const radius = Math.floor(size * 0.3);
  const cx = size - radius - 1;
  const cy = size - radius - 1;
  for (let y = cy - radius; y <= cy + radius; y += 1)
    for (let x = cx - radius; x <= cx + radius; x += 1)
      if ((x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2) put(x, y, BADGE_BGRA);
  const glyph = GLYPHS[text]!;
  const scale = Math.max(1, Math.floor((radius * 2 - 2) / 6));
  const left = cx - Math.floor((3 * scale) / 2);
  const top = cy - Math.floor((5 * scale) / 2);
  glyph.forEach((row, gy) =>
    [...row].forEach((cell, gx) => {
      if (cell !== '#') return;
      for (let dy = 0; dy < scale; dy += 1)
        for (let dx = 0; dx < scale; dx += 1) put(left + gx * scale + dx, top + gy * scale + dy, TEXT_BGRA);
    }),
  );
  return out;
}
