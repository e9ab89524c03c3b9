/** Plain aligned columns; widths ignore the CLI's own colour codes. Cells are shown as visible text (screen-text.ts). */
import { joined, widthOf, type ScreenText, type Shown } from './screen-text.js';

export function table(header: string[], rows: Shown[][]): ScreenText[] {
  const widths = header.map((h, i) => Math.max(widthOf(h), ...rows.map((r) => widthOf(r[i] ?? ''))));
  const line = (cells: Shown[]): ScreenText => {
    // Trailing blanks are left out: the line ends with its last cell that shows something.
    const shownCells = cells.map((cell) => (typeof cell === 'string' ? cell.trimEnd() : cell));
    let last = shownCells.length - 1;
    while (last > 0 && widthOf(shownCells[last]!) === 0) last -= 1;
    const parts = shownCells
      .slice(0, last + 1)
      .flatMap((cell, i) => (i === last ? [cell] : [cell, ' '.repeat(widths[i]! - widthOf(cell) + 2)]));
    return joined(parts, '');
  };
  return [line(header), ...rows.map(line)];
}

export function truncate(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
