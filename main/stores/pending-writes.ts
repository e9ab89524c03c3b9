/**
 * The writes of one commit group (group-commit.ts). A new task's row is inserted at once, inside the
 * group's open transaction: `INSERT … ON CONFLICT (key_scope, message_id) DO NOTHING` tells a new
 * idempotency key from a known one by the table's own UNIQUE constraint, and a taken id by its primary key,
 * with no SELECT in a read transaction of its own. Every later change of the group is held and written at
 * commit, with one statement per event and one UPDATE per task row whose snapshot changed: a task's
 * snapshots within one group are coalesced, only the last is written (its events all are, so the log
 * keeps every state the task passed through; docs/benchmark.md#the-store-per-blocking-send).
 *
 * `create` and `commit` check everything the schema would refuse (ids, seq order, NOT NULL columns) before
 * they change anything, so each call is atomic and the group's SQL cannot fail on one task's account; only
 * an I/O error (disk full) can lose a group, and then all of it.
 */
import type Database from 'better-sqlite3';
import { creatorAgent } from '../domain/authority.js';
import type { StreamEvent, TaskEvent } from '../domain/events.js';
import { isTerminal, type Task, type TaskState } from '../domain/task.js';
import type { IdempotencyKey, StoredTask } from '../ports.js';
import { TextRuns } from './artifact-refs.js';
import { checkedLastSeq, isTaskEvent, taskNotFound } from './task-query.js';

/** The indexed columns of a task row, and its JSON, as of one snapshot. */
export interface TaskColumns {
  id: string;
  context_id: string;
  agent: string;
  state: string;
  updated_at: string;
  task_json: string;
  /** With `artifact_refs`: the stored JSON refers to events for long texts (artifact-refs.ts). */
  artifact_refs: string | null;
  task_bytes: number | null;
  /** The whole task's JSON, when that is what `task_json` holds (the snapshot's return value). */
  whole_json: string | undefined;
}

interface PendingTask {
  lastSeq: number;
  /** The latest snapshot, when the row still has to be written with it (absent: the row is current). */
  columns?: TaskColumns;
  /** The state of the task as of this group (for `committedSeq`). */
  state: string;
  events: { seq: number; json: string }[];
}

/** A new task's row, checked and serialized, ready for `insert`. */
export interface NewRow {
  /** The caller's task: handed back as the stored one, its JSON text being what is stored. */
  task: Task;
  columns: TaskColumns;
  createdAt: string;
  /** The agent that created the task, or null (the person): set once, a task's creator never changes. */
  createdByAgent: string | null;
  lastSeq: number;
  key: IdempotencyKey | undefined;
  events: { seq: number; json: string }[];
}

/** Positional parameters, in the order listed: binding by name costs a lookup per column. */
export interface WriteStatements {
  /** (id) → { last_seq }. */
  lastSeq: Database.Statement;
  /**
   * (id, context_id, agent, state, created_at, updated_at, last_seq, key_scope, message_id, payload_hash,
   * task_json, created_by_agent): inserts a row; 0 changes when its idempotency key is already stored.
   */
  insertTask: Database.Statement;
  /** (context_id, agent, state, updated_at, last_seq, task_json, artifact_refs, task_bytes, id). */
  updateTask: Database.Statement;
  /** (task_id, seq, event_json). */
  insertEvent: Database.Statement;
}

export class PendingWrites {
  private readonly tasks = new Map<string, PendingTask>();
  /**
   * The committed last seq of each unfinished task this connection wrote: the next change of a task
   * (its turn starting after its creation committed) needs no SELECT. Only committed groups land here
   * (`committed`); a lost group's are dropped with it. Finished tasks leave: a late change reads the row.
   */
  private readonly committedSeq = new Map<string, number>();
  /**
   * What the group being written will add to `committedSeq` once it commits, task by task: its id and last
   * seq, `undefined` = it leaves. Two arrays reused group after group, so writing a group allocates none.
   */
  private readonly stagedIds: string[] = [];
  private readonly stagedSeqs: (number | undefined)[] = [];
  /** What a snapshot's long reply texts can refer to instead of holding them again (artifact-refs.ts). */
  private readonly runs = new TextRuns();

  constructor(
    private readonly sql: WriteStatements,
    /**
     * Reads a snapshot held for this group as its readers will: referred texts put back from the stored
     * events and from `held`, the task's events this group has not written yet (SqliteTaskStore).
     */
    private readonly readStored: (columns: TaskColumns, held: readonly EventJson[]) => Task,
  ) {}

  get empty(): boolean {
    return this.tasks.size === 0;
  }

  /** A stored task with this group's changes applied, when it has any. */
  overlay(stored: StoredTask): StoredTask {
    const pending = this.tasks.get(stored.task.id);
    if (!pending) return stored;
    return pending.columns ? this.stored(pending) : { task: stored.task, lastSeq: pending.lastSeq };
  }

  /** Checks and serializes a new task (nothing is written): throws what the schema would refuse. */
  newRow(task: Task, events: StreamEvent[], key: IdempotencyKey | undefined): NewRow {
    return {
      task,
      lastSeq: checkedLastSeq(task.id, 0, events),
      columns: wholeTaskColumns(task),
      createdAt: required(task.id, 'metadata.createdAt', task.metadata.createdAt),
      createdByAgent: creatorAgent(task.metadata.createdBy) ?? null,
      key,
      events: serialized(events),
    };
  }

  /**
   * Inserts a new task's row in the group's open transaction: its stored form, or undefined when its
   * idempotency key is already stored (nothing was written). Throws when the id is taken. The stored
   * form is the caller's own task, not a read-back of the text just stored: the row holds that text, so
   * what the caller does with its object afterwards cannot change what is stored.
   */
  insert(row: NewRow): StoredTask | undefined {
    const { columns, key } = row;
    let changes: number;
    try {
      changes = this.sql.insertTask.run(
        columns.id,
        columns.context_id,
        columns.agent,
        columns.state,
        row.createdAt,
        columns.updated_at,
        row.lastSeq,
        key?.scope ?? null,
        key?.messageId ?? null,
        key?.payloadHash ?? null,
        columns.task_json,
        row.createdByAgent,
      ).changes;
    } catch (err) {
      if ((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new Error(`Task ${columns.id} already exists.`, { cause: err });
      }
      throw err;
    }
    if (changes === 0) return undefined;
    this.tasks.set(columns.id, { lastSeq: row.lastSeq, state: columns.state, events: row.events });
    return { task: row.task, lastSeq: row.lastSeq };
  }

  /** Holds a change for the group; returns the snapshot's JSON text as it will be stored (see TaskStore.commit). */
  commit(taskId: string, events: TaskEvent[], task: Task | undefined): string | undefined {
    const pending = this.tasks.get(taskId);
    const stored =
      pending?.lastSeq ??
      this.committedSeq.get(taskId) ??
      (this.sql.lastSeq.get(taskId) as { last_seq: number } | undefined)?.last_seq;
    if (stored === undefined) throw taskNotFound(taskId);
    const lastSeq = checkedLastSeq(taskId, stored, events);
    // Serialized now: the caller keeps changing its task after this returns.
    const json = serialized(events);
    const columns = task ? this.snapshotColumns(task, events, json) : undefined;
    if (!task) this.runs.note(taskId, events, json);
    if (!pending) {
      this.tasks.set(taskId, {
        lastSeq,
        // Unknown without a snapshot: the task stays in `committedSeq` as it was.
        state: columns?.state ?? '',
        ...(columns ? { columns } : {}),
        events: json,
      });
      return columns?.whole_json;
    }
    pending.lastSeq = lastSeq;
    // A later snapshot of the same group replaces the held one: one UPDATE per task per group.
    if (columns) {
      pending.columns = columns;
      pending.state = columns.state;
    }
    for (const event of json) pending.events.push(event);
    return columns?.whole_json;
  }

  /** Writes everything held (inside the group's transaction) and forgets it, written or not. */
  writeAll(): void {
    this.unstage();
    try {
      // By key, then get: iterating the entries would make an [id, pending] array per task.
      for (const id of this.tasks.keys()) {
        const pending = this.tasks.get(id)!;
        this.stagedIds.push(id);
        this.stagedSeqs.push(isTerminal(pending.state as TaskState) ? undefined : pending.lastSeq);
        const c = pending.columns;
        if (c) {
          const { context_id, agent, state, updated_at, task_json, artifact_refs, task_bytes } = c;
          this.sql.updateTask.run(
            context_id,
            agent,
            state,
            updated_at,
            pending.lastSeq,
            task_json,
            artifact_refs,
            task_bytes,
            id,
          );
        }
        // Events alone leave the row as it is: its last seq is recovered from them (sqlite.ts, LAST_SEQ),
        // so a streamed reply's commits write the events' pages only, not the task row and its b-tree page.
        for (const event of pending.events) this.sql.insertEvent.run(id, event.seq, event.json);
      }
    } finally {
      this.tasks.clear();
    }
  }

  /** The group was lost: what it held is dropped. */
  forget(): void {
    this.tasks.clear();
    this.runs.clear();
    this.unstage();
  }

  /** The group `writeAll` wrote is committed. */
  committed(): void {
    for (let i = 0; i < this.stagedIds.length; i += 1) {
      const id = this.stagedIds[i]!;
      const seq = this.stagedSeqs[i];
      if (seq === undefined) this.committedSeq.delete(id);
      else this.committedSeq.set(id, seq);
    }
    this.unstage();
  }

  private unstage(): void {
    this.stagedIds.length = 0;
    this.stagedSeqs.length = 0;
  }

  private stored(pending: PendingTask): StoredTask {
    return { task: this.readStored(pending.columns!, pending.events), lastSeq: pending.lastSeq };
  }

  /**
   * A snapshot's columns, its long reply texts referring to this call's events or earlier ones when they
   * hold them (artifact-refs.ts). A call that throws leaves nothing of its events to refer to.
   */
  private snapshotColumns(task: Task, events: readonly StreamEvent[], json: readonly EventJson[]): TaskColumns {
    const indexed = indexedColumns(task);
    this.runs.note(task.id, events, json);
    try {
      const form = this.runs.storedForm(task);
      // A finished task's snapshot is its last but for late facts, which are stored whole.
      if (isTerminal(indexed.state as TaskState)) this.runs.drop(task.id);
      if (!form) {
        const whole = JSON.stringify(task);
        return { ...indexed, task_json: whole, artifact_refs: null, task_bytes: null, whole_json: whole };
      }
      return {
        ...indexed,
        task_json: form.json,
        artifact_refs: form.refs,
        task_bytes: form.bytes,
        whole_json: undefined,
      };
    } catch (err) {
      this.runs.drop(task.id);
      throw err;
    }
  }
}

/** A task's columns with its whole JSON: a new task's row, which no event precedes. */
function wholeTaskColumns(task: Task): TaskColumns {
  const task_json = JSON.stringify(task);
  return { ...indexedColumns(task), task_json, artifact_refs: null, task_bytes: null, whole_json: task_json };
}

function indexedColumns(task: Task): Pick<TaskColumns, 'id' | 'context_id' | 'agent' | 'state' | 'updated_at'> {
  return {
    id: task.id,
    context_id: required(task.id, 'contextId', task.contextId),
    agent: required(task.id, 'metadata.agent', task.metadata.agent),
    state: required(task.id, 'status.state', task.status.state),
    updated_at: required(task.id, 'status.timestamp', task.status.timestamp),
  };
}

/** A NOT NULL column checked when the write is made, not when its group commits. */
function required(taskId: string, field: string, value: unknown): string {
  if (typeof value !== 'string') throw new Error(`Task ${taskId} has no ${field}; it cannot be stored.`);
  return value;
}

export interface EventJson {
  seq: number;
  json: string;
}

function serialized(events: readonly StreamEvent[]): EventJson[] {
  const out: EventJson[] = [];
  for (const event of events) if (isTaskEvent(event)) out.push({ seq: event.seq, json: JSON.stringify(event) });
  return out;
}
