/**
 * The writes of one commit group, held until it commits (group-commit.ts), then written with one
 * statement per task row whose snapshot changed and one per event. A task created and finished in the same group is inserted
 * once, already finished: its row and its four `updated_at` index entries are not rewritten per change.
 *
 * `create` and `commit` check everything the schema would refuse (ids, idempotency keys, seq order,
 * NOT NULL columns) before they change anything here, so each call is atomic and the group's SQL cannot
 * fail on one task's account; only an I/O error (disk full) can lose a group, and then all of it.
 */
import type Database from 'better-sqlite3';
import type { StreamEvent, TaskEvent } from '../domain/events.js';
import { isTerminal, type Task, type TaskState } from '../domain/task.js';
import type { IdempotencyKey, StoredTask } from '../ports.js';
import { checkedLastSeq, isTaskEvent, taskNotFound } from './task-query.js';

/** The indexed columns of a task row, and its JSON, as of one snapshot. */
export interface TaskColumns {
  id: string;
  context_id: string;
  agent: string;
  state: string;
  updated_at: string;
  task_json: string;
}

interface PendingTask {
  /** Not in the table yet: inserted when the group commits. */
  created?: { createdAt: string; key: IdempotencyKey | undefined };
  lastSeq: number;
  /** The latest snapshot; absent when only events changed (then the row is not written: see LAST_SEQ). */
  columns?: TaskColumns;
  events: { seq: number; json: string }[];
}

export interface WriteStatements {
  /** (id) → 1 when the task is stored. */
  exists: Database.Statement;
  /** (id) → { last_seq }. */
  lastSeq: Database.Statement;
  insertTask: Database.Statement;
  updateTask: Database.Statement;
  insertEvent: Database.Statement;
}

export class PendingWrites {
  private readonly tasks = new Map<string, PendingTask>();
  /** `${scope}\0${messageId}` → task id, for keys of tasks created in this group. */
  private readonly keys = new Map<string, string>();
  /**
   * The committed last seq of each unfinished task this connection wrote: the next change of a task
   * (its turn starting after its creation committed) needs no SELECT. Only committed groups land here
   * (`committed`); a lost group's are dropped with it. Finished tasks leave: a late change reads the row.
   */
  private readonly committedSeq = new Map<string, number>();
  /** What the group being written will add to `committedSeq` once it commits; `undefined` = leaves it. */
  private staged: [string, number | undefined][] = [];

  constructor(private readonly sql: WriteStatements) {}

  get empty(): boolean {
    return this.tasks.size === 0;
  }

  /** The task a key created in this group, as it is now; undefined when none did. */
  createdWith(key: IdempotencyKey): { stored: StoredTask; payloadHash: string } | undefined {
    const id = this.keys.get(keyId(key));
    const pending = id === undefined ? undefined : this.tasks.get(id);
    if (!pending?.created?.key || !pending.columns) return undefined;
    return { stored: this.stored(pending), payloadHash: pending.created.key.payloadHash };
  }

  /** A stored task with this group's changes applied, when it has any. */
  overlay(stored: StoredTask): StoredTask {
    const pending = this.tasks.get(stored.task.id);
    if (!pending) return stored;
    return pending.columns ? this.stored(pending) : { task: stored.task, lastSeq: pending.lastSeq };
  }

  create(task: Task, events: StreamEvent[], key: IdempotencyKey | undefined): StoredTask {
    if (this.tasks.get(task.id)?.created || this.sql.exists.get(task.id)) {
      throw new Error(`Task ${task.id} already exists.`);
    }
    const lastSeq = checkedLastSeq(task.id, 0, events);
    const columns = taskColumns(task);
    const createdAt = required(task.id, 'metadata.createdAt', task.metadata.createdAt);
    this.tasks.set(task.id, { created: { createdAt, key }, lastSeq, columns, events: serialized(events) });
    if (key) this.keys.set(keyId(key), task.id);
    return { task: JSON.parse(columns.task_json) as Task, lastSeq };
  }

  commit(taskId: string, events: TaskEvent[], task: Task | undefined): void {
    const pending = this.tasks.get(taskId);
    const stored =
      pending?.lastSeq ??
      this.committedSeq.get(taskId) ??
      (this.sql.lastSeq.get(taskId) as { last_seq: number } | undefined)?.last_seq;
    if (stored === undefined) throw taskNotFound(taskId);
    const lastSeq = checkedLastSeq(taskId, stored, events);
    // Serialized now: the caller keeps changing its task after this returns.
    const columns = task ? taskColumns(task) : undefined;
    const json = serialized(events);
    if (!pending) {
      this.tasks.set(taskId, { lastSeq, ...(columns ? { columns } : {}), events: json });
      return;
    }
    pending.lastSeq = lastSeq;
    if (columns) pending.columns = columns;
    pending.events.push(...json);
  }

  /** Writes everything held (inside the group's transaction) and forgets it, written or not. */
  writeAll(): void {
    this.staged = [];
    try {
      for (const [id, pending] of this.tasks) {
        const state = pending.columns?.state as TaskState | undefined;
        this.staged.push([id, state !== undefined && isTerminal(state) ? undefined : pending.lastSeq]);
        if (pending.created) {
          const { createdAt, key } = pending.created;
          this.sql.insertTask.run({
            ...pending.columns!,
            created_at: createdAt,
            last_seq: pending.lastSeq,
            key_scope: key?.scope ?? null,
            message_id: key?.messageId ?? null,
            payload_hash: key?.payloadHash ?? null,
          });
        } else if (pending.columns) {
          this.sql.updateTask.run({ ...pending.columns, last_seq: pending.lastSeq });
        }
        // Events alone leave the row as it is: its last seq is recovered from them (sqlite.ts, LAST_SEQ),
        // so a streamed reply's commits write the events' pages only, not the task row and its b-tree page.
        for (const event of pending.events) this.sql.insertEvent.run(id, event.seq, event.json);
      }
    } finally {
      this.tasks.clear();
      this.keys.clear();
    }
  }

  /** The group `writeAll` wrote is committed. */
  committed(): void {
    for (const [id, seq] of this.staged) {
      if (seq === undefined) this.committedSeq.delete(id);
      else this.committedSeq.set(id, seq);
    }
    this.staged = [];
  }

  private stored(pending: PendingTask): StoredTask {
    return { task: JSON.parse(pending.columns!.task_json) as Task, lastSeq: pending.lastSeq };
  }
}

export function taskColumns(task: Task): TaskColumns {
  return {
    id: task.id,
    context_id: required(task.id, 'contextId', task.contextId),
    agent: required(task.id, 'metadata.agent', task.metadata.agent),
    state: required(task.id, 'status.state', task.status.state),
    updated_at: required(task.id, 'status.timestamp', task.status.timestamp),
    task_json: JSON.stringify(task),
  };
}

/** A NOT NULL column checked when the write is made, not when its group commits. */
function required(taskId: string, field: string, value: unknown): string {
  if (typeof value !== 'string') throw new Error(`Task ${taskId} has no ${field}; it cannot be stored.`);
  return value;
}

function serialized(events: readonly StreamEvent[]): { seq: number; json: string }[] {
  return events.filter(isTaskEvent).map((event) => ({ seq: event.seq, json: JSON.stringify(event) }));
}

function keyId(key: IdempotencyKey): string {
  return `${key.scope}\u0000${key.messageId}`;
}
