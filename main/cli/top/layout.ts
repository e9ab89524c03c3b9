/**
 * What `contactor top` prints in a cell: agent text made safe for a terminal, elapsed times, the caller
 * chain, state labels, and which columns fit the terminal's width. Pure functions, shared by the live
 * screen and the one-shot text snapshot.
 */
import { visible } from '../../domain/visible-text.js';
import type { ActivityRow } from '../../schema/activity.js';

/**
 * Agents write what they like into their replies; a terminal obeys escape sequences (set the title, write
 * the clipboard, move the cursor, redraw the screen). Every control and invisible format character is
 * shown as a visible mark (domain/visible-text.ts), so an agent's text can only ever show as text
 * (SECURITY.md#what-a-person-reads); a tab is a space, as a cell has no tab stops.
 */
export function plain(text: string): string {
  return visible(text).replace(/\t/g, ' ');
}

/** One line of at most `width` columns (an ellipsis marks a cut): its start, or with `end` its end. */
export function fit(text: string, width: number, end = false): string {
  const one = plain(text).replace(/\s+/g, ' ').trim();
  if (width <= 0) return '';
  if (one.length <= width) return one;
  return end ? `…${one.slice(one.length - width + 1)}` : `${one.slice(0, Math.max(0, width - 1))}…`;
}

/** "9s", "4m05s", "2h07m", "3d04h": how long a task has been in its state. */
export function elapsed(sinceIso: string, now: number): string {
  const ms = now - Date.parse(sinceIso);
  if (!Number.isFinite(ms)) return '?';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}

/** Who asked whom: `person → echo`, `claude → codex → gemini` (the delegation chain ends with the task's agent). */
export function callerChain(row: Pick<ActivityRow, 'caller' | 'chain' | 'agent'>): string {
  const chain = row.chain.length > 0 ? [...row.chain] : [row.agent];
  if (chain.at(-1) !== row.agent) chain.push(row.agent);
  // The person is never in the chain of agents; a calling agent always is (it visited on the way here).
  if (!chain.includes(row.caller)) chain.unshift(row.caller);
  return chain.join(' → ');
}

/** The state as a person reads it: running, waiting (with its queue place), a question, or how it ended. */
export function stateLabel(row: Pick<ActivityRow, 'state' | 'queuePosition' | 'question'>): string {
  switch (row.state) {
    case 'working':
      return 'running';
    case 'submitted':
      return row.queuePosition ? `waiting #${row.queuePosition}` : 'waiting';
    case 'input-required':
      return row.question?.kind === 'permission' ? 'asks permission' : 'asks you';
    case 'auth-required':
      return 'needs login';
    default:
      return row.state;
  }
}

export type Tone = 'running' | 'waiting' | 'question' | 'done' | 'failed';

export function toneOf(state: ActivityRow['state']): Tone {
  if (state === 'working') return 'running';
  if (state === 'submitted') return 'waiting';
  if (state === 'input-required' || state === 'auth-required') return 'question';
  if (state === 'completed') return 'done';
  return 'failed';
}

/** The task table's columns for a terminal `width` columns wide: narrow terminals drop the chain, then the line. */
export interface Columns {
  state: number;
  age: number;
  chain: number;
  /** The brief, or the last line of output once there is one; 0 when it does not fit. */
  line: number;
}

const MARK = 2;
const GAP = 1;

export function columnsFor(width: number): Columns {
  let rest = width - MARK;
  const state = Math.max(0, Math.min(15, rest));
  rest -= state + GAP;
  const age = rest >= 6 ? 6 : 0;
  if (age) rest -= age + GAP;
  if (rest < 16) return { state, age, chain: Math.max(0, rest), line: 0 };
  if (rest < 40) return { state, age, chain: Math.min(14, rest), line: Math.max(0, rest - 14 - GAP) };
  const chain = Math.min(32, Math.floor(rest * 0.35));
  return { state, age, chain, line: rest - chain - GAP };
}

/** One task as the cells of a table line, each padded to its column (a column of width 0 is left out). */
export function rowCells(row: ActivityRow, cols: Columns, now: number): { state: string; rest: string } {
  // Output shows its end (what is being written now); a brief or a question its start.
  const line = row.question
    ? fit(`? ${row.question.title}`, cols.line)
    : row.lastLine
      ? fit(row.lastLine, cols.line, true)
      : fit(row.brief, cols.line);
  return {
    state: pad(fit(stateLabel(row), cols.state), cols.state),
    rest: join([
      cols.age ? pad(elapsed(row.since, now), cols.age) : '',
      pad(fit(callerChain(row), cols.chain), cols.chain),
      line,
    ]),
  };
}

/** The table's heading, in the same columns. */
export function headingCells(cols: Columns): string {
  return join([
    pad('STATE', cols.state),
    cols.age ? pad('FOR', cols.age) : '',
    pad(fit('CALLER → AGENT', cols.chain), cols.chain),
    fit('BRIEF / LAST LINE', cols.line),
  ]);
}

function join(cells: string[]): string {
  return cells.filter((c) => c !== '').join(' ');
}

export function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}
