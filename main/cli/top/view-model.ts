/**
 * What `contactor top` shows, as plain data: the latest snapshot, the live changes the event feed brought
 * since, which task is selected, and the detail pane of the task being followed. Pure functions from one
 * state to the next; the screen (app.tsx) renders the state and runs the bridge calls the keys ask for.
 */
import type { ActivityDetail, ActivityRow, ActivitySnapshot, AgentActivity } from '../../schema/activity.js';
import { PendingSchema, type CliPending } from '../../schema/cli.js';
import { ACTIVITY_LINE_CHARS } from '../../domain/activity.js';

/** How much of a followed task's reply the detail pane keeps: the end of it, which is what is on screen. */
export const DETAIL_TEXT_CHARS = 64 * 1024;
/** Progress notes kept for the detail pane (the latest). */
export const DETAIL_NOTES = 200;

export type Connection = 'connecting' | 'live' | 'reconnecting';

export interface Detail {
  taskId: string;
  /** Loaded from `activity/task`; until then the pane shows the row only. */
  loaded: boolean;
  brief: string;
  /** The tail of the reply so far. */
  text: string;
  notes: string[];
  pending?: CliPending;
  children: ActivityRow[];
}

export type Prompt =
  { kind: 'answer'; taskId: string; input: string; error?: string } | { kind: 'cancel'; taskId: string };

export interface TopState {
  rows: ActivityRow[];
  agents: AgentActivity[];
  truncated: boolean;
  /** false until the first snapshot arrived. */
  loaded: boolean;
  selectedId?: string;
  /** The followed task (enter): the detail pane replaces the table. */
  detail?: Detail;
  prompt?: Prompt;
  connection: Connection;
  /** One line under the table: what the last action did, or why it failed. */
  flash?: Flash;
}

/**
 * A flash that tells a task's state (`task … is working`) names the task and that state: when the task moves
 * on, the line says its new state instead of staying stale under the table.
 */
export interface Flash {
  text: string;
  bad: boolean;
  about?: { taskId: string; state: string };
}

export function initialState(): TopState {
  return { rows: [], agents: [], truncated: false, loaded: false, connection: 'connecting' };
}

/** A fresh snapshot replaces the table; the selection stays on its task while that task is listed. */
export function withSnapshot(state: TopState, snap: ActivitySnapshot): TopState {
  const selectedId =
    state.selectedId && snap.rows.some((r) => r.taskId === state.selectedId) ? state.selectedId : snap.rows[0]?.taskId;
  const about = state.flash?.about;
  const moved = about && snap.rows.find((r) => r.taskId === about.taskId && r.state !== about.state);
  return {
    ...state,
    rows: snap.rows,
    agents: snap.agents,
    truncated: snap.truncated,
    loaded: true,
    ...(selectedId ? { selectedId } : { selectedId: undefined }),
    ...(moved ? { flash: stateFlash(moved.taskId, moved.state) } : {}),
  };
}

/** One event of the bridge-wide feed, as `GET /events` carries it (docs/contract.md#the-event-feed). */
export interface FeedEvent {
  kind: 'status-update' | 'artifact-update';
  taskId: string;
  state?: ActivityRow['state'];
  timestamp?: string;
  /** The text an artifact-update carried. */
  text?: string;
  append?: boolean;
  /** A progress note (tool call, plan, thought) a status-update carried. */
  note?: string;
}

/**
 * Applies one feed event to the table and the followed task. Returns `refetch` when the event says
 * something the table cannot show from the event alone (a task it does not list, a new state with a
 * question or a queue place to learn): the caller then takes a fresh snapshot.
 */
export function withFeedEvent(state: TopState, event: FeedEvent): { state: TopState; refetch: boolean } {
  const at = state.rows.findIndex((r) => r.taskId === event.taskId);
  let refetch = at === -1;
  let rows = state.rows;
  if (at !== -1) {
    const row = state.rows[at]!;
    let next = row;
    if (event.state && event.state !== row.state) {
      next = { ...next, state: event.state, ...(event.timestamp ? { since: event.timestamp } : {}) };
      refetch = true;
    }
    if (event.text) {
      const tail = lineTail(row, event.text);
      if (tail) next = { ...withoutLineEnd(next), ...tail };
    }
    if (next !== row) {
      rows = [...state.rows];
      rows[at] = next;
    }
  }
  let detail = state.detail;
  if (detail && detail.taskId === event.taskId) {
    if (event.text !== undefined) {
      const text = event.append === false && detail.text === '' ? event.text : detail.text + event.text;
      detail = { ...detail, text: text.slice(-DETAIL_TEXT_CHARS) };
    }
    if (event.note) detail = { ...detail, notes: [...detail.notes, event.note].slice(-DETAIL_NOTES) };
    // A new state may open or close a question: the pane reloads the task.
    if (event.state) refetch = true;
  }
  const about = state.flash?.about;
  const flash =
    about && event.state && about.taskId === event.taskId && about.state !== event.state
      ? stateFlash(event.taskId, event.state)
      : state.flash;
  const same = rows === state.rows && detail === state.detail && flash === state.flash;
  return { state: same ? state : { ...state, rows, detail, ...(flash ? { flash } : {}) }, refetch };
}

export function withDetail(state: TopState, d: ActivityDetail): TopState {
  if (state.detail?.taskId !== d.row.taskId) return state;
  const task = d.task as {
    artifacts?: { parts?: { kind?: string; text?: string }[] }[];
    metadata?: { pending?: unknown };
  };
  const text = (task.artifacts ?? [])
    .flatMap((a) => a.parts ?? [])
    .map((p) => (p.kind === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('');
  const pending = PendingSchema.safeParse(task.metadata?.pending);
  const rows = state.rows.map((r) => (r.taskId === d.row.taskId ? d.row : r));
  return {
    ...state,
    rows,
    detail: {
      taskId: d.row.taskId,
      loaded: true,
      brief: d.row.brief,
      text: text.slice(-DETAIL_TEXT_CHARS),
      notes: d.notes.map((n) => `${n.kind}: ${n.text}`).slice(-DETAIL_NOTES),
      ...(pending.success && d.row.state === 'input-required' ? { pending: pending.data } : {}),
      children: d.children,
    },
  };
}

export function selectedRow(state: TopState): ActivityRow | undefined {
  return state.rows.find((r) => r.taskId === state.selectedId);
}

/** Moves the selection `by` rows (clamped), or to the first / last row. */
export function moveSelection(state: TopState, by: number | 'first' | 'last'): TopState {
  if (state.rows.length === 0) return state;
  const at = Math.max(
    0,
    state.rows.findIndex((r) => r.taskId === state.selectedId),
  );
  const to =
    by === 'first' ? 0 : by === 'last' ? state.rows.length - 1 : Math.min(state.rows.length - 1, Math.max(0, at + by));
  return { ...state, selectedId: state.rows[to]!.taskId, flash: undefined };
}

/** Follows the selected task: the detail pane opens at once and fills when `activity/task` answers. */
export function openDetail(state: TopState): TopState {
  const row = selectedRow(state);
  if (!row) return state;
  return {
    ...state,
    flash: undefined,
    detail: { taskId: row.taskId, loaded: false, brief: row.brief, text: '', notes: [], children: [] },
  };
}

export function closeDetail(state: TopState): TopState {
  const { detail: _detail, prompt: _prompt, ...rest } = state;
  return rest;
}

/** The task the keys act on: the followed one, else the selected one. */
export function targetTaskId(state: TopState): string | undefined {
  return state.detail?.taskId ?? state.selectedId;
}

export function withFlash(state: TopState, text: string, bad = false, about?: Flash['about']): TopState {
  return { ...state, flash: { text, bad, ...(about ? { about } : {}) } };
}

/** The flash that tells a task's state, kept in step with it. */
export function stateFlash(taskId: string, state: string): Flash {
  return { text: `task ${taskId} is ${state}`, bad: false, about: { taskId, state } };
}

/**
 * The last line of output after a streamed chunk: a chunk without a line break continues the line shown
 * (an agent streaming words), one with a break starts over with its last non-empty line. What ended the
 * line shown (a snapshot's `lastLineEnd`, a break in the previous chunk) is put back first, so a chunk
 * after `word3` + blank or break does not join it. The end of the line is kept: it is what moves.
 */
export function lineTail(
  row: Pick<ActivityRow, 'lastLine' | 'lastLineEnd'>,
  chunk: string,
): Pick<ActivityRow, 'lastLine' | 'lastLineEnd'> | undefined {
  // A snapshot's long line was cut at its front (domain/activity.ts `lastLineOf`): the ellipsis is not output.
  const ended = row.lastLineEnd === 'break' ? '\n' : row.lastLineEnd === 'space' ? ' ' : '';
  const lines = ((row.lastLine ?? '').replace(/^…/, '') + ended + chunk).split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    // Kept as written: the space after a streamed word separates it from the next chunk.
    const line = lines[i]!;
    if (line.trim() !== '')
      return { lastLine: line.slice(-ACTIVITY_LINE_CHARS), ...(i < lines.length - 1 ? { lastLineEnd: 'break' } : {}) };
  }
  return undefined;
}

function withoutLineEnd(row: ActivityRow): ActivityRow {
  const { lastLineEnd: _end, ...rest } = row;
  return rest;
}
