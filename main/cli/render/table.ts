/** Plain aligned columns; widths ignore colour codes. */
const ANSI = /\x1b\[[0-9;]*m/g;

export function table(header: string[], rows: string[][]): string[] {
  const width = (s: string) => s.replace(ANSI, '').length;
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i]! - width(cell))))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function truncate(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
