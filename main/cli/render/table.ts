/**
 * Plain aligned columns; widths ignore the CLI's own colour codes. Cells are shown as visible text (screen-text.ts).
 * On a terminal the table fits its width, as `contactor top` does: the columns named to give way are cut (with
 * `…`) and, when too little of one would be left to read, left out, so no line wraps.
 */
import { joined, widthOf, type ScreenText, type Shown } from './screen-text.js';

/** How a table fits a terminal: its width, and the plain-text columns that give way, the first listed first. */
export interface TableFit {
  width: number;
  giveWay: readonly number[];
}

/** A column cut narrower than this (or than its heading) is left out: a few letters tell nothing. */
const MIN_READABLE = 10;
const GAP = 2;

export function table(header: string[], rows: Shown[][], fit?: TableFit): ScreenText[] {
  const widths = header.map((h, i) => Math.max(widthOf(h), ...rows.map((r) => widthOf(r[i] ?? ''))));
  const shownColumns = header.map(() => true);
  if (fit) {
    let total = widths.reduce((sum, w) => sum + w, 0) + GAP * (widths.length - 1);
    for (const col of fit.giveWay) {
      const excess = total - fit.width;
      if (excess <= 0) break;
      const narrower = widths[col]! - excess;
      if (narrower < Math.max(MIN_READABLE, widthOf(header[col]!))) {
        shownColumns[col] = false;
        total -= widths[col]! + GAP;
      } else {
        widths[col] = narrower;
        total -= excess;
      }
    }
  }
  const line = (cells: Shown[]): ScreenText => {
    // Trailing blanks are left out: the line ends with its last cell that shows something.
    const kept = cells.map((cell, i) => ({ cell: fitCell(cell, widths[i]!), i })).filter(({ i }) => shownColumns[i]);
    const shownCells = kept.map(({ cell }) => (typeof cell === 'string' ? cell.trimEnd() : cell));
    let last = shownCells.length - 1;
    while (last > 0 && widthOf(shownCells[last]!) === 0) last -= 1;
    const parts = shownCells
      .slice(0, last + 1)
      .flatMap((cell, i) => (i === last ? [cell] : [cell, ' '.repeat(widths[kept[i]!.i]! - widthOf(cell) + GAP)]));
    return joined(parts, '');
  };
  return [line(header), ...rows.map(line)];
}

/** A plain-text cell cut to its column; the CLI's own coloured cells are never cut (they are short words). */
function fitCell(cell: Shown, width: number): Shown {
  return typeof cell === 'string' && cell.length > width ? truncate(cell, width) : cell;
}

export function truncate(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
