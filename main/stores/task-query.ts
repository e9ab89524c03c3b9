/**
 * The parts of `tasks/list` both stores interpret the same way, so their pages are identical.
 */
import { BridgeError, taskNotFound } from '../domain/errors.js';
import type { StreamEvent, TaskEvent } from '../domain/events.js';
import type { Task, TaskState } from '../domain/task.js';
import type { TaskQuery } from '../ports.js';
import { decodePageToken, type PageCursor } from './page-token.js';

/** A `TaskQuery` with its optional parts settled: absent filters are `undefined`. */
export interface ListFilter {
  contextId: string | undefined;
  agent: string | undefined;
  /** The creating agent's name (TaskQuery.createdByAgent). */
  createdByAgent: string | undefined;
  /** `undefined` when the query names no state (an empty list filters nothing). */
  states: TaskState[] | undefined;
  /** Canonical ISO-8601 (`toISOString`), comparable as text with stored status timestamps. */
  updatedAfter: string | undefined;
  cursor: PageCursor | undefined;
  /** At least 1. */
  pageSize: number;
  /** The page's JSON budget (TaskQuery.maxBytes), only when artifacts are included. */
  maxBytes: number | undefined;
}

export function listFilter(query: TaskQuery): ListFilter {
  return {
    contextId: query.contextId,
    agent: query.agent,
    createdByAgent: query.createdByAgent,
    states: query.states && query.states.length > 0 ? [...query.states] : undefined,
    updatedAfter: query.updatedAfter === undefined ? undefined : canonicalInstant(query.updatedAfter),
    // An empty token is what A2A clients send on the first request.
    cursor: query.pageToken ? decodePageToken(query.pageToken) : undefined,
    pageSize: Math.max(1, Math.floor(query.pageSize)),
    maxBytes: query.includeArtifacts ? query.maxBytes : undefined,
  };
}

/**
 * Takes a page's rows in order until `pageSize` or the byte budget is reached (the first row always
 * fits). `more` says whether anything was left behind, so the caller issues a next-page token. Reads
 * lazily: rows past the cut are never materialized (a page of 100 tasks with 32 MiB each was 3.2 GB).
 */
export function takePage<T>(
  rows: Iterable<T>,
  filter: ListFilter,
  sizeOf: (row: T) => number,
): { taken: T[]; more: boolean } {
  const taken: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (taken.length >= filter.pageSize) return { taken, more: true };
    const size = filter.maxBytes === undefined ? 0 : sizeOf(row);
    if (taken.length > 0 && filter.maxBytes !== undefined && bytes + size > filter.maxBytes) {
      return { taken, more: true };
    }
    bytes += size;
    taken.push(row);
  }
  return { taken, more: false };
}

/**
 * Status timestamps are stored as `toISOString()` text, so text order is time order; a caller's
 * `updatedAfter` may use any ISO form (offsets, no milliseconds) and is brought to that form first.
 */
function canonicalInstant(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    throw new BridgeError('invalid-params', `updatedAfter is not an ISO-8601 date-time: ${JSON.stringify(value)}`);
  }
  return new Date(ms).toISOString();
}

export function withoutArtifacts(task: Task): Task {
  return { ...task, artifacts: [] };
}

export function isTaskEvent(event: StreamEvent): event is TaskEvent {
  return event.kind !== 'task';
}

/**
 * A task's event log is append-only with strictly rising seq numbers; a resuming subscriber relies on it
 * (docs/contract.md#streaming). Returns the seq of the last event, or `lastSeq` when there are none.
 */
export function checkedLastSeq(taskId: string, lastSeq: number, events: readonly StreamEvent[]): number {
  let previous = lastSeq;
  for (const event of events) {
    if (!Number.isInteger(event.seq) || event.seq <= previous) {
      throw new Error(
        `Event seq ${event.seq} of task ${taskId} does not follow seq ${previous}; events are append-only.`,
      );
    }
    previous = event.seq;
  }
  return previous;
}

/** The one TaskNotFound (domain/errors.ts), for the stores' lookups. */
export { taskNotFound };

/** A snapshot handed to `commit` must be of the task it is committed to. */
export function checkSnapshotId(taskId: string, task: Task | undefined): void {
  if (task && task.id !== taskId) throw new Error(`Snapshot of task ${task.id} committed to task ${taskId}.`);
}
