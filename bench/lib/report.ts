/**
 * The result tables: the goals (one value per run, median, spread, verdict; see goals.ts) and the
 * detail of the last run (each figure beside its same-run baseline), printed as aligned text and
 * written as Markdown.
 */
export interface Row {
  section: string;
  measure: string;
  contactor: string;
  baseline: string;
  comparison: string;
}

export const DETAIL_HEADERS = ['section', 'measure', 'contactor', 'baseline (same run)', 'comparison'];

export const detailCells = (rows: Row[]): string[][] =>
  rows.map((r) => [r.section, r.measure, r.contactor, r.baseline, r.comparison]);

export function textTable(headers: string[], rows: string[][]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function markdownTable(headers: string[], rows: string[][]): string {
  const line = (c: readonly string[]) => `| ${c.map((x) => x.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export const ms = (v: number): string => `${v.toFixed(2)} ms`;
export const perS = (v: number): string => `${Math.round(v)}/s`;
export const mb = (v: number | undefined): string => (v === undefined ? 'n/a (no /proc)' : `${v.toFixed(1)} MB`);
