/**
 * The writes of one event-loop turn, held on the main thread until the turn ends and then handed to the
 * writer thread as one group (writer-thread.ts). As in the in-loop store (pending-writes.ts), a task's
 * snapshots within one group are coalesced — only the last is written, its events all are — and a task
 * created in the group is inserted once, with its latest snapshot.
 */
import type { IdempotencyKey } from '../../ports.js';
import type { TaskColumns } from '../pending-writes.js';
import type { WriteGroup } from './writer-thread.js';

type Callback = (lost?: Error) => void;

interface HeldTask {
  /** Set when the group creates the task: the columns written once, at insert. */
  created?: { createdAt: string; createdByAgent: string | null; key: IdempotencyKey | undefined };
  /** The latest snapshot, when the row must be written with it. */
  columns?: TaskColumns;
  lastSeq: number;
  /** [seq, event JSON] in order. */
  events: (number | string)[];
}

export class HeldGroup {
  private readonly tasks = new Map<string, HeldTask>();
  readonly callbacks: Callback[] = [];
  /** Idempotency keys this group inserts (`keyOf`): pending until it commits. */
  readonly keys: string[] = [];
  /** Tasks this group finishes: their last seq need not be remembered once it commits. */
  readonly finished: string[] = [];

  constructor(
    readonly gen: number,
    /** How many lost groups the store knew of when this one began (writer-thread.ts refuses stale ones). */
    readonly losses: number,
  ) {}

  has(taskId: string): boolean {
    return this.tasks.has(taskId);
  }

  create(
    columns: TaskColumns,
    created: NonNullable<HeldTask['created']>,
    lastSeq: number,
    events: { seq: number; json: string }[],
  ): void {
    const flat: (number | string)[] = [];
    for (const e of events) flat.push(e.seq, e.json);
    this.tasks.set(columns.id, { created, columns, lastSeq, events: flat });
    if (created.key) this.keys.push(keyOf(created.key));
  }

  commit(
    taskId: string,
    lastSeq: number,
    columns: TaskColumns | undefined,
    events: { seq: number; json: string }[],
  ): void {
    let held = this.tasks.get(taskId);
    if (!held) {
      held = { lastSeq, events: [] };
      this.tasks.set(taskId, held);
    }
    held.lastSeq = lastSeq;
    if (columns) held.columns = columns;
    for (const e of events) held.events.push(e.seq, e.json);
  }

  /**
   * The group as the writer thread takes it: rows first, then events (they reference their task's row).
   * Flat arrays of the statements' parameters: one array of strings clones faster than many small ones.
   */
  message(): WriteGroup {
    const inserts: unknown[] = [];
    const updates: unknown[] = [];
    const events: unknown[] = [];
    for (const [id, held] of this.tasks) {
      const c = held.columns;
      const created = held.created;
      if (created && c) {
        const key = created.key;
        inserts.push(
          id,
          c.context_id,
          c.agent,
          c.state,
          created.createdAt,
          c.updated_at,
          held.lastSeq,
          key?.scope ?? null,
          key?.messageId ?? null,
          key?.payloadHash ?? null,
          c.task_json,
          created.createdByAgent,
        );
      } else if (c) {
        updates.push(c.context_id, c.agent, c.state, c.updated_at, held.lastSeq, c.task_json, id);
      }
      for (let i = 0; i < held.events.length; i += 2) events.push(id, held.events[i], held.events[i + 1]);
    }
    return { kind: 'write', gen: this.gen, losses: this.losses, inserts, updates, events };
  }
}

/** One string per idempotency key, for a map. */
export function keyOf(key: { scope: string; messageId: string }): string {
  return `${key.scope}\u0000${key.messageId}`;
}
