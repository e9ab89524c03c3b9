/**
 * The result table: one row per figure, with its same-run baseline, the comparison and the issue's
 * target (PASS/MISS), printed as aligned text and written as Markdown.
 */
export interface Row {
  section: string;
  measure: string;
  contactor: string;
  baseline: string;
  comparison: string;
  target: string;
  /** undefined: no target (informational). */
  pass: boolean | undefined;
}

const HEADERS = ['section', 'measure', 'contactor', 'baseline (same run)', 'comparison', 'target', 'result'] as const;

function cells(row: Row): string[] {
  return [
    row.section,
    row.measure,
    row.contactor,
    row.baseline,
    row.comparison,
    row.target,
    row.pass === undefined ? '' : row.pass ? 'PASS' : 'MISS',
  ];
}

export function textTable(rows: Row[]): string {
  const all = [[...HEADERS], ...rows.map(cells)];
  const widths = HEADERS.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function markdownTable(rows: Row[]): string {
  const line = (c: readonly string[]) => `| ${c.map((x) => x.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(HEADERS), line(HEADERS.map(() => '---')), ...rows.map((r) => line(cells(r)))].join('\n');
}

export const ms = (v: number): string => `${v.toFixed(2)} ms`;
export const perS = (v: number): string => `${Math.round(v)}/s`;
