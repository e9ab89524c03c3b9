/**
 * The durable TaskStore: one SQLite file in WAL mode (see open-database.ts for the pragmas and why).
 * `new SqliteTaskStore({ file })` opens, checks and migrates the file, or throws an error naming it.
 * One connection, used synchronously, so each method's transaction is never interleaved with another.
 * Writes are held and committed in groups (pending-writes.ts, group-commit.ts): durable at the end of
 * the event-loop turn; every read commits the pending group first, so nothing read can be lost by a crash.
 *
 * The `task` snapshot events given to `create` count towards `lastSeq` but are not stored: the snapshot
 * is the `tasks` row itself, and `eventsAfter` returns only status and artifact updates. A snapshot's long
 * reply text is not stored twice: the row refers to the artifact events that hold it (artifact-refs.ts),
 * and every reader here puts it back.
 */
import type Database from 'better-sqlite3';
import type { StreamEvent, TaskEvent } from '../domain/events.js';
import type { Task, TaskState } from '../domain/task.js';
import type { IdempotencyKey, StoredTask, TaskPage, TaskQuery, TaskStore } from '../ports.js';
import { withTexts, type TextRef } from './artifact-refs.js';
import { PRUNABLE_STATES, type PrunableStore, type PruneOptions } from './history-pruning.js';
import { GroupCommit } from './group-commit.js';
import { openDatabase } from './open-database.js';
import { PendingWrites, type EventJson } from './pending-writes.js';
import { WalCheckpointer, type WalCheckpointerOptions } from './wal-checkpointer.js';
import { encodePageToken } from './page-token.js';
import { checkSnapshotId, listFilter, takePage, withoutArtifacts, type ListFilter } from './task-query.js';

export interface SqliteTaskStoreOptions {
  /** Path of the database file; created when missing (its folder must exist). */
  file: string;
  /** How the WAL is checkpointed off the event loop (defaults suit the bridge). */
  checkpoints?: WalCheckpointerOptions;
}

interface TaskRow {
  id: string;
  updated_at: string;
  last_seq: number;
  payload_hash: string | null;
  task_json: string;
  /** JSON of TextRef[] when task_json refers to events for long texts; NULL: task_json is the whole task. */
  artifact_refs: string | null;
  /** The whole task's JSON size in bytes, when task_json is not the whole task. */
  task_bytes: number | null;
}

type Statement = Database.Statement;

export class SqliteTaskStore implements TaskStore, PrunableStore {
  private readonly db: Database.Database;
  private readonly sql: ReturnType<typeof prepare>;
  private readonly group: GroupCommit;
  private readonly checkpointer: WalCheckpointer;
  private readonly pending: PendingWrites;
  /** `list` statements, one per combination of filters in use, each prepared on first use. */
  private readonly listSql = new Map<string, { page: Statement; count: Statement }>();

  private readonly pruneTx: (opts: PruneOptions) => number;
  /** Runs a page query and its count in one transaction, so totalSize describes the same snapshot. */
  private readonly readPage: <T>(read: () => T) => T;

  constructor(options: SqliteTaskStoreOptions) {
    this.db = openDatabase(options.file);
    this.sql = prepare(this.db);
    this.pending = new PendingWrites(this.sql, (columns, held) =>
      this.taskOf(columns.id, columns.task_json, columns.artifact_refs, held),
    );
    this.checkpointer = new WalCheckpointer(options.file, options.checkpoints);
    this.group = new GroupCommit(
      this.db,
      () => this.pending.writeAll(),
      () => {
        this.pending.committed();
        this.checkpointer.committed();
      },
      () => this.pending.forget(),
    );
    // Events go with their task (ON DELETE CASCADE); the state filter is in the SQL, so no race with a
    // task finishing between the choice and the delete.
    this.pruneTx = this.db.transaction((opts: PruneOptions) => {
      const states = JSON.stringify(PRUNABLE_STATES);
      let deleted = 0;
      if (opts.olderThan !== undefined) deleted += this.sql.pruneOlder.run(states, opts.olderThan).changes;
      if (opts.maxTasks !== undefined) {
        const { n } = this.sql.countAll.get() as { n: number };
        if (n > opts.maxTasks) deleted += this.sql.pruneOldest.run(states, n - opts.maxTasks).changes;
      }
      return deleted;
    });
    const readTx = this.db.transaction((read: () => unknown) => read());
    this.readPage = <T>(read: () => T) => readTx(read) as T;
  }

  create(
    task: Task,
    events: StreamEvent[],
    key?: IdempotencyKey,
  ): { stored: StoredTask; created: boolean; payloadHash?: string } {
    const row = this.pending.newRow(task, events, key);
    // In the group's transaction: the insert itself finds a known key (its UNIQUE constraint).
    const stored = this.group.write(() => this.pending.insert(row));
    if (stored) return { stored, created: true, ...(key ? { payloadHash: key.payloadHash } : {}) };
    const known = this.knownKey(key!);
    return { stored: known.stored, created: false, ...(known.payloadHash ? { payloadHash: known.payloadHash } : {}) };
  }

  commit(taskId: string, events: TaskEvent[], task?: Task): string | undefined {
    checkSnapshotId(taskId, task);
    // In the group, so a task's last seq, when it must be read, is read inside the group's transaction.
    return this.group.write(() => this.pending.commit(taskId, events, task));
  }

  afterCommit(callback: (lost?: Error) => void): void {
    this.group.afterCommit(callback);
  }

  flush(): void {
    this.group.flush();
  }

  get(taskId: string): StoredTask | undefined {
    this.commitPending();
    const row = this.sql.byId.get(taskId) as TaskRow | undefined;
    return row ? this.storedOf(row) : undefined;
  }

  list(query: TaskQuery): TaskPage {
    this.commitPending();
    const filter = listFilter(query);
    const { page, count } = this.listStatements(filter);
    const params = listParams(filter);
    const [{ taken: shown, more }, total] = this.readPage(
      () =>
        [
          takePage(
            page.iterate({ ...params, limit: filter.pageSize + 1 }) as IterableIterator<TaskRow>,
            filter,
            (row) => row.task_bytes ?? Buffer.byteLength(row.task_json),
          ),
          (count.get(params) as { n: number }).n,
        ] as const,
    );
    const last = shown.at(-1);
    return {
      tasks: shown.map((row) =>
        query.includeArtifacts
          ? this.taskOf(row.id, row.task_json, row.artifact_refs)
          : withoutArtifacts(JSON.parse(row.task_json) as Task),
      ),
      nextPageToken: more && last ? encodePageToken({ updatedAt: last.updated_at, id: last.id }) : '',
      totalSize: total,
    };
  }

  eventsAfter(taskId: string, afterSeq: number): TaskEvent[] {
    this.commitPending();
    const rows = this.sql.eventsAfter.all(taskId, afterSeq) as { event_json: string }[];
    return rows.map((row) => JSON.parse(row.event_json) as TaskEvent);
  }

  /** Tasks in any of `states`, oldest status first: restart recovery and the pending list. */
  tasksInStates(states: TaskState[]): Task[] {
    this.commitPending();
    const rows = this.sql.inStates.all(JSON.stringify(states)) as TaskRow[];
    return rows.map((row) => this.taskOf(row.id, row.task_json, row.artifact_refs));
  }

  prune(opts: PruneOptions): number {
    this.commitPending();
    return this.pruneTx(opts);
  }

  close(): void {
    if (!this.db.open) return;
    try {
      this.commitPending();
    } finally {
      // The checkpointing connection closes first: the writer's close, the last, removes the WAL.
      this.checkpointer.close();
      this.db.close();
    }
  }

  /** Before a read: a lost group was already reported to its writers, and the read shows what is left. */
  private commitPending(): void {
    try {
      this.group.flush();
    } catch {
      // Reported through afterCommit; the read goes on against the rolled-back state.
    }
  }

  /** The task an idempotency key created, as it is now (this group's changes applied): read only on a conflict. */
  private knownKey(key: IdempotencyKey): { stored: StoredTask; payloadHash?: string } {
    const row = this.sql.byKey.get(key.scope, key.messageId) as TaskRow;
    return {
      stored: this.pending.overlay(this.storedOf(row)),
      ...(row.payload_hash ? { payloadHash: row.payload_hash } : {}),
    };
  }

  private storedOf(row: TaskRow): StoredTask {
    return { task: this.taskOf(row.id, row.task_json, row.artifact_refs), lastSeq: row.last_seq };
  }

  /**
   * A stored snapshot as readers get it: its referred texts put back from the task's events, the stored
   * ones and then `held` (events of the open group, not written yet).
   */
  private taskOf(id: string, json: string, refs: string | null, held: readonly EventJson[] = []): Task {
    const task = JSON.parse(json) as Task;
    if (refs === null) return task;
    return withTexts(task, JSON.parse(refs) as TextRef[], (first, last) => {
      const stored = this.sql.eventsBetween.all(id, first, last) as string[];
      for (const event of held) if (event.seq >= first && event.seq <= last) stored.push(event.json);
      return stored;
    });
  }

  private listStatements(filter: ListFilter): { page: Statement; count: Statement } {
    const where = [
      filter.contextId !== undefined && 'context_id = @contextId',
      filter.agent !== undefined && 'agent = @agent',
      filter.createdByAgent !== undefined && 'created_by_agent = @createdByAgent',
      filter.states !== undefined && 'state IN (SELECT value FROM json_each(@states))',
      filter.updatedAfter !== undefined && 'updated_at > @updatedAfter',
    ].filter((clause): clause is string => clause !== false);
    const cursor = filter.cursor ? ['(updated_at, id) < (@cursorAt, @cursorId)'] : [];
    const cacheKey = [...where, ...cursor].join(' AND ');
    let cached = this.listSql.get(cacheKey);
    if (!cached) {
      const clause = (parts: string[]) => (parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '');
      cached = {
        page: this.db.prepare(
          `SELECT id, updated_at, last_seq, task_json, artifact_refs, task_bytes FROM tasks ${clause([...where, ...cursor])}
           ORDER BY updated_at DESC, id DESC LIMIT @limit`,
        ),
        count: this.db.prepare(`SELECT count(*) AS n FROM tasks ${clause(where)}`),
      };
      this.listSql.set(cacheKey, cached);
    }
    return cached;
  }
}

/**
 * A task's last seq: the row's `last_seq` is written with each snapshot only; events appended since (an
 * artifact stream commits events without a snapshot) are found by the events' primary key, one index
 * seek. The events and the row commit in one transaction, so after a crash both agree on what is there.
 */
const LAST_SEQ = `max(last_seq, coalesce((SELECT max(seq) FROM events WHERE task_id = tasks.id), 0)) AS last_seq`;
/** What a reader needs of a row besides its ids: the snapshot and where its referred texts are. */
const ROW_TASK = 'payload_hash, task_json, artifact_refs, task_bytes';

function prepare(db: Database.Database) {
  return {
    byId: db.prepare(`SELECT id, updated_at, ${LAST_SEQ}, ${ROW_TASK} FROM tasks WHERE id = ?`),
    byKey: db.prepare(
      `SELECT id, updated_at, ${LAST_SEQ}, ${ROW_TASK} FROM tasks WHERE key_scope = ? AND message_id = ?`,
    ),
    lastSeq: db.prepare(`SELECT ${LAST_SEQ} FROM tasks WHERE id = ?`),
    // Parameters in the order pending-writes.ts (WriteStatements) passes them.
    insertTask: db.prepare(
      `INSERT INTO tasks (id, context_id, agent, state, created_at, updated_at, last_seq,
                          key_scope, message_id, payload_hash, task_json, created_by_agent)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key_scope, message_id) DO NOTHING`,
    ),
    updateTask: db.prepare(
      `UPDATE tasks SET context_id = ?, agent = ?, state = ?, updated_at = ?, last_seq = ?, task_json = ?,
                        artifact_refs = ?, task_bytes = ?
       WHERE id = ?`,
    ),
    insertEvent: db.prepare('INSERT INTO events (task_id, seq, event_json) VALUES (?, ?, ?)'),
    eventsAfter: db.prepare('SELECT event_json FROM events WHERE task_id = ? AND seq > ? ORDER BY seq'),
    eventsBetween: db
      .prepare('SELECT event_json FROM events WHERE task_id = ? AND seq BETWEEN ? AND ? ORDER BY seq')
      .pluck(),
    countAll: db.prepare('SELECT count(*) AS n FROM tasks'),
    pruneOlder: db.prepare('DELETE FROM tasks WHERE state IN (SELECT value FROM json_each(?)) AND updated_at < ?'),
    pruneOldest: db.prepare(
      `DELETE FROM tasks WHERE id IN (
         SELECT id FROM tasks WHERE state IN (SELECT value FROM json_each(?)) ORDER BY updated_at, id LIMIT ?)`,
    ),
    inStates: db.prepare(
      `SELECT id, updated_at, last_seq, ${ROW_TASK} FROM tasks
       WHERE state IN (SELECT value FROM json_each(?)) ORDER BY updated_at, id`,
    ),
  };
}

function listParams(filter: ListFilter): Record<string, string> {
  return {
    ...(filter.contextId !== undefined ? { contextId: filter.contextId } : {}),
    ...(filter.agent !== undefined ? { agent: filter.agent } : {}),
    ...(filter.createdByAgent !== undefined ? { createdByAgent: filter.createdByAgent } : {}),
    ...(filter.states !== undefined ? { states: JSON.stringify(filter.states) } : {}),
    ...(filter.updatedAfter !== undefined ? { updatedAfter: filter.updatedAfter } : {}),
    ...(filter.cursor ? { cursorAt: filter.cursor.updatedAt, cursorId: filter.cursor.id } : {}),
  };
}
