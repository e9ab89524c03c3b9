/**
 * A real TaskStore kept in Maps, for tests and development. Same semantics and page tokens as
 * `SqliteTaskStore`; nothing survives the process. Values are cloned on the way in and out, so a caller
 * holding a task it passed in or got back can never change what is stored.
 */
import { creatorAgent } from '../domain/authority.js';
import type { StreamEvent, TaskEvent } from '../domain/events.js';
import type { Task, TaskState } from '../domain/task.js';
import type { IdempotencyKey, StoredTask, TaskPage, TaskQuery, TaskStore } from '../ports.js';
import { PRUNABLE_STATES, type PrunableStore, type PruneOptions } from './history-pruning.js';
import { encodePageToken } from './page-token.js';
import {
  checkedLastSeq,
  checkSnapshotId,
  isTaskEvent,
  listFilter,
  takePage,
  taskNotFound,
  withoutArtifacts,
  type ListFilter,
} from './task-query.js';

interface Entry {
  task: Task;
  lastSeq: number;
  /** Only status and artifact updates; the `task` snapshot event lives on as `task`. */
  events: TaskEvent[];
}

export class InMemoryTaskStore implements TaskStore, PrunableStore {
  private readonly tasks = new Map<string, Entry>();
  /** `${scope}\0${messageId}` → the task it created and the payload hash it came with. */
  private readonly keys = new Map<string, { taskId: string; payloadHash: string }>();

  create(
    task: Task,
    events: StreamEvent[],
    key?: IdempotencyKey,
  ): { stored: StoredTask; created: boolean; payloadHash?: string } {
    const keyId = key ? `${key.scope}\0${key.messageId}` : undefined;
    const known = keyId === undefined ? undefined : this.keys.get(keyId);
    if (known) {
      return { stored: this.stored(this.entry(known.taskId)), created: false, payloadHash: known.payloadHash };
    }
    if (this.tasks.has(task.id)) throw new Error(`Task ${task.id} already exists.`);
    const lastSeq = checkedLastSeq(task.id, 0, events);
    const entry: Entry = { task: structuredClone(task), lastSeq, events: structuredClone(events.filter(isTaskEvent)) };
    this.tasks.set(task.id, entry);
    if (key && keyId !== undefined) this.keys.set(keyId, { taskId: task.id, payloadHash: key.payloadHash });
    return { stored: this.stored(entry), created: true, ...(key ? { payloadHash: key.payloadHash } : {}) };
  }

  commit(taskId: string, events: TaskEvent[], task?: Task): string | undefined {
    checkSnapshotId(taskId, task);
    const entry = this.tasks.get(taskId);
    if (!entry) throw taskNotFound(taskId);
    // Checked before anything changes, so a rejected commit leaves the entry as it was.
    const lastSeq = checkedLastSeq(taskId, entry.lastSeq, events);
    entry.events.push(...structuredClone(events.filter(isTaskEvent)));
    entry.lastSeq = lastSeq;
    if (!task) return undefined;
    entry.task = structuredClone(task);
    return JSON.stringify(task);
  }

  get(taskId: string): StoredTask | undefined {
    const entry = this.tasks.get(taskId);
    return entry ? this.stored(entry) : undefined;
  }

  list(query: TaskQuery): TaskPage {
    const filter = listFilter(query);
    const matching = [...this.tasks.values()].map((e) => e.task).filter((t) => matches(t, filter));
    matching.sort(newestFirst);
    const after = filter.cursor;
    const rest = after ? matching.filter((t) => isBefore(t, after.updatedAt, after.id)) : matching;
    const { taken: page, more } = takePage(rest, filter, (t) => Buffer.byteLength(JSON.stringify(t)));
    const last = page.at(-1);
    return {
      tasks: page.map((t) => structuredClone(query.includeArtifacts ? t : withoutArtifacts(t))),
      nextPageToken: more && last ? encodePageToken({ updatedAt: last.status.timestamp, id: last.id }) : '',
      totalSize: matching.length,
    };
  }

  eventsAfter(taskId: string, afterSeq: number): TaskEvent[] {
    const entry = this.tasks.get(taskId);
    return entry ? structuredClone(entry.events.filter((e) => e.seq > afterSeq)) : [];
  }

  /** Tasks in any of `states`, oldest status first: restart recovery and the pending list. */
  tasksInStates(states: TaskState[]): Task[] {
    const found = [...this.tasks.values()].map((e) => e.task).filter((t) => states.includes(t.status.state));
    return structuredClone(found.sort(newestFirst).reverse());
  }

  prune(opts: PruneOptions): number {
    const finished = [...this.tasks.values()]
      .map((e) => e.task)
      .filter((t) => PRUNABLE_STATES.includes(t.status.state))
      .sort(newestFirst)
      .reverse();
    const doomed = new Set(
      opts.olderThan === undefined ? [] : finished.filter((t) => t.status.timestamp < opts.olderThan!).map((t) => t.id),
    );
    if (opts.maxTasks !== undefined) {
      const excess = this.tasks.size - doomed.size - opts.maxTasks;
      for (const task of finished.filter((t) => !doomed.has(t.id)).slice(0, Math.max(0, excess))) doomed.add(task.id);
    }
    for (const id of doomed) this.tasks.delete(id);
    for (const [keyId, known] of this.keys) if (doomed.has(known.taskId)) this.keys.delete(keyId);
    return doomed.size;
  }

  /** Nothing here is durable, and every write is complete when it returns: callbacks run at once. */
  afterCommit(callback: (lost?: Error) => void): void {
    callback();
  }

  flush(): void {}

  close(): void {}

  private entry(taskId: string): Entry {
    const entry = this.tasks.get(taskId);
    if (!entry) throw new Error(`Idempotency key points at missing task ${taskId}.`);
    return entry;
  }

  private stored(entry: Entry): StoredTask {
    return { task: structuredClone(entry.task), lastSeq: entry.lastSeq };
  }
}

function matches(task: Task, filter: ListFilter): boolean {
  return (
    (filter.contextId === undefined || task.contextId === filter.contextId) &&
    (filter.agent === undefined || task.metadata.agent === filter.agent) &&
    (filter.createdByAgent === undefined || creatorAgent(task.metadata.createdBy) === filter.createdByAgent) &&
    (filter.states === undefined || filter.states.includes(task.status.state)) &&
    (filter.updatedAfter === undefined || task.status.timestamp > filter.updatedAfter)
  );
}

/** Text order on both keys, as SQLite orders the same columns (identical for ASCII ids and timestamps). */
function newestFirst(a: Task, b: Task): number {
  return compareText(b.status.timestamp, a.status.timestamp) || compareText(b.id, a.id);
}

function isBefore(task: Task, updatedAt: string, id: string): boolean {
  const byTime = compareText(task.status.timestamp, updatedAt);
  return byTime < 0 || (byTime === 0 && compareText(task.id, id) < 0);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
