/**
 * The activity read model: what the activity window and `contactor top` show of tasks, computed from
 * tasks as `tasks/get` returns them and nothing else (docs/contract.md#activity). Pure functions; the
 * runtime feeds them (runtime/activity.ts), schema/activity.ts gives the wire shapes.
 */
import { isInterrupted, isTerminal, textOf, type Task, type TaskState } from './task.js';

/** A row's brief and last output line are cut to this many characters. */
export const ACTIVITY_LINE_CHARS = 200;

export interface ActivityRow {
  taskId: string;
  contextId: string;
  agent: string;
  caller: string;
  chain: string[];
  parentTaskId?: string;
  brief: string;
  state: TaskState;
  since: string;
  createdAt: string;
  question?: { kind: 'permission' | 'decision'; title: string };
  queuePosition?: number;
  lastLine?: string;
  /**
   * What follows `lastLine` in the text it was read from: a line break, or blanks (the line is shown
   * trimmed). A live view that appends streamed chunks to the line needs it, or `word3` and a next chunk
   * `word4` would join as `word3word4`.
   */
  lastLineEnd?: LineEnd;
}

export type LineEnd = 'space' | 'break';

export interface AgentActivity {
  agent: string;
  running: number;
  waiting: number;
  questions: number;
}

export interface ActivitySummary {
  running: number;
  waiting: number;
  needsYou: number;
  finished: number;
}

/** The row of one task; `queuePosition` is filled in by `withQueuePositions`. */
export function activityRow(task: Task): ActivityRow {
  const m = task.metadata;
  const creator = typeof m.createdBy === 'string' ? m.createdBy : 'person';
  const parent = typeof m.parentTaskId === 'string' ? m.parentTaskId : undefined;
  const pending = isInterrupted(task.status.state) ? m.pending : undefined;
  const last = lastLine(task);
  return {
    taskId: task.id,
    contextId: task.contextId,
    agent: m.agent,
    caller: creator.startsWith('agent:') ? creator.slice('agent:'.length) : 'person',
    chain: [...m.visitedAgents],
    ...(parent ? { parentTaskId: parent } : {}),
    brief: firstLine(textOf(task.history.find((msg) => msg.role === 'user')?.parts ?? [])),
    state: task.status.state,
    since: task.status.timestamp,
    createdAt: m.createdAt,
    ...(pending
      ? {
          question: {
            kind: pending.kind,
            title: cut(pending.kind === 'permission' ? pending.toolCall.title : pending.question),
          },
        }
      : {}),
    ...(last.line ? { lastLine: last.line, ...(last.end ? { lastLineEnd: last.end } : {}) } : {}),
  };
}

/**
 * Places in each agent's queue for the waiting (`submitted`) rows: an agent starts its tasks in the order
 * they were accepted (runtime/shards.ts), so the oldest waiting task of an agent is next.
 */
export function withQueuePositions(rows: ActivityRow[]): ActivityRow[] {
  const waiting = rows
    .filter((r) => r.state === 'submitted')
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.taskId.localeCompare(b.taskId));
  const next = new Map<string, number>();
  const places = new Map<string, number>();
  for (const row of waiting) {
    const place = (next.get(row.agent) ?? 0) + 1;
    next.set(row.agent, place);
    places.set(row.taskId, place);
  }
  return rows.map((row) => {
    const { queuePosition: _old, ...rest } = row;
    const place = places.get(row.taskId);
    return place === undefined ? rest : { ...rest, queuePosition: place };
  });
}

/** Per agent (every agent named, also those with nothing to do): running, waiting, open questions. */
export function agentActivity(agents: readonly string[], rows: readonly ActivityRow[]): AgentActivity[] {
  const by = new Map<string, AgentActivity>(agents.map((a) => [a, { agent: a, running: 0, waiting: 0, questions: 0 }]));
  for (const row of rows) {
    let counts = by.get(row.agent);
    if (!counts) {
      counts = { agent: row.agent, running: 0, waiting: 0, questions: 0 };
      by.set(row.agent, counts);
    }
    if (row.state === 'working') counts.running += 1;
    else if (row.state === 'submitted') counts.waiting += 1;
    else if (isInterrupted(row.state)) counts.questions += 1;
  }
  return [...by.values()];
}

/** running (working) / waiting (submitted) / needs you (a question) / finished (terminal). */
export function activitySummary(rows: readonly ActivityRow[]): ActivitySummary {
  const summary: ActivitySummary = { running: 0, waiting: 0, needsYou: 0, finished: 0 };
  for (const row of rows) {
    if (row.state === 'working') summary.running += 1;
    else if (row.state === 'submitted') summary.waiting += 1;
    else if (isInterrupted(row.state)) summary.needsYou += 1;
    else if (isTerminal(row.state)) summary.finished += 1;
  }
  return summary;
}

/** The first non-empty line of a text, cut. */
export function firstLine(text: string): string {
  for (const line of text.split('\n', 50)) {
    if (line.trim() !== '') return cut(line.trim());
  }
  return '';
}

/** The last non-empty line of a text, cut at its front; reads only the text's end (a reply may be megabytes). */
export function lastLineOf(text: string): string {
  const tail = text.slice(-4 * ACTIVITY_LINE_CHARS);
  const lines = tail.split('\n');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i]!.trim();
    if (line !== '') return cutFront(line);
  }
  return '';
}

/** What ends a text after its last non-empty line: a line break, blanks, or nothing (a word mid-stream). */
export function lineEndOf(text: string): LineEnd | undefined {
  const end = /\s*$/.exec(text.slice(-4 * ACTIVITY_LINE_CHARS))![0];
  if (end.includes('\n')) return 'break';
  return end === '' ? undefined : 'space';
}

function lastLine(task: Task): { line: string; end?: LineEnd } {
  for (let a = task.artifacts.length - 1; a >= 0; a -= 1) {
    const parts = task.artifacts[a]!.parts;
    for (let p = parts.length - 1; p >= 0; p -= 1) {
      const part = parts[p]!;
      if (part.kind === 'text') {
        const line = lastLineOf(part.text);
        const end = lineEndOf(part.text);
        if (line) return end ? { line, end } : { line };
      }
    }
  }
  // A status text is not the reply: streamed reply text that follows starts a line of its own.
  const status = task.status.message ? textOf(task.status.message.parts) : '';
  return { line: lastLineOf(status), end: 'break' };
}

function cut(text: string): string {
  return text.length > ACTIVITY_LINE_CHARS ? `${text.slice(0, ACTIVITY_LINE_CHARS - 1)}…` : text;
}

/** An output line keeps its end: for an agent streaming words into one long line, the end is what moves. */
function cutFront(text: string): string {
  return text.length > ACTIVITY_LINE_CHARS ? `…${text.slice(-(ACTIVITY_LINE_CHARS - 1))}` : text;
}
