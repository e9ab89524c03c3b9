/**
 * The reads of the worker-thread store, on a connection of the main thread. SQLite in WAL mode lets it
 * read while the writer thread commits: each statement sees the last commit made before it began, never
 * half a group. The SQL is the in-loop store's (sqlite.ts), so both stores answer alike.
 *
 * This connection opens the file first (open-database.ts: the checks, the migrations) and writes nothing.
 */
import type Database from 'better-sqlite3';
import type { TaskEvent } from '../../domain/events.js';
import type { Task, TaskState } from '../../domain/task.js';
import type { StoredTask, TaskPage, TaskQuery } from '../../ports.js';
import { openDatabase } from '../open-database.js';
import { encodePageToken } from '../page-token.js';
import { listFilter, takePage, withoutArtifacts, type ListFilter } from '../task-query.js';

interface TaskRow {
  id: string;
  updated_at: string;
  last_seq: number;
  payload_hash: string | null;
  task_json: string;
}

type Statement = Database.Statement;

/** sqlite.ts LAST_SEQ: the row's last seq, or a later event's (events may be stored without a snapshot). */
const LAST_SEQ = `max(last_seq, coalesce((SELECT max(seq) FROM events WHERE task_id = tasks.id), 0)) AS last_seq`;

export class StoreReads {
  readonly db: Database.Database;
  private readonly byId: Statement;
  private readonly byKey: Statement;
  private readonly lastSeqOf: Statement;
  private readonly idTaken: Statement;
  private readonly eventsOf: Statement;
  private readonly inStates: Statement;
  private readonly listSql = new Map<string, { page: Statement; count: Statement }>();
  private readonly readPage: <T>(read: () => T) => T;

  constructor(file: string) {
    this.db = openDatabase(file);
    this.byId = this.db.prepare(`SELECT id, updated_at, ${LAST_SEQ}, payload_hash, task_json FROM tasks WHERE id = ?`);
    this.byKey = this.db.prepare(
      `SELECT id, updated_at, ${LAST_SEQ}, payload_hash, task_json FROM tasks WHERE key_scope = ? AND message_id = ?`,
    );
    this.lastSeqOf = this.db.prepare(`SELECT ${LAST_SEQ} FROM tasks WHERE id = ?`).pluck();
    this.idTaken = this.db.prepare('SELECT 1 FROM tasks WHERE id = ?').pluck();
    this.eventsOf = this.db.prepare('SELECT event_json FROM events WHERE task_id = ? AND seq > ? ORDER BY seq');
    this.inStates = this.db.prepare(
      `SELECT task_json FROM tasks WHERE state IN (SELECT value FROM json_each(?)) ORDER BY updated_at, id`,
    );
    const readTx = this.db.transaction((read: () => unknown) => read());
    this.readPage = <T>(read: () => T) => readTx(read) as T;
  }

  get(taskId: string): StoredTask | undefined {
    const row = this.byId.get(taskId) as TaskRow | undefined;
    return row ? storedOf(row) : undefined;
  }

  /** The committed last seq of a task, or undefined when no such task is stored. */
  lastSeq(taskId: string): number | undefined {
    return this.lastSeqOf.get(taskId) as number | undefined;
  }

  has(taskId: string): boolean {
    return this.idTaken.get(taskId) !== undefined;
  }

  byIdempotencyKey(scope: string, messageId: string): { stored: StoredTask; payloadHash?: string } | undefined {
    const row = this.byKey.get(scope, messageId) as TaskRow | undefined;
    if (!row) return undefined;
    return { stored: storedOf(row), ...(row.payload_hash ? { payloadHash: row.payload_hash } : {}) };
  }

  eventsAfter(taskId: string, afterSeq: number): TaskEvent[] {
    const rows = this.eventsOf.all(taskId, afterSeq) as { event_json: string }[];
    return rows.map((row) => JSON.parse(row.event_json) as TaskEvent);
  }

  tasksInStates(states: TaskState[]): Task[] {
    const rows = this.inStates.all(JSON.stringify(states)) as { task_json: string }[];
    return rows.map((row) => JSON.parse(row.task_json) as Task);
  }

  list(query: TaskQuery): TaskPage {
    const filter = listFilter(query);
    const { page, count } = this.listStatements(filter);
    const params = listParams(filter);
    const [{ taken: shown, more }, total] = this.readPage(
      () =>
        [
          takePage(
            page.iterate({ ...params, limit: filter.pageSize + 1 }) as IterableIterator<TaskRow>,
            filter,
            (row) => Buffer.byteLength(row.task_json),
          ),
          (count.get(params) as { n: number }).n,
        ] as const,
    );
    const last = shown.at(-1);
    return {
      tasks: shown.map((row) => {
        const task = JSON.parse(row.task_json) as Task;
        return query.includeArtifacts ? task : withoutArtifacts(task);
      }),
      nextPageToken: more && last ? encodePageToken({ updatedAt: last.updated_at, id: last.id }) : '',
      totalSize: total,
    };
  }

  close(): void {
    this.db.close();
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
          `SELECT id, updated_at, last_seq, task_json FROM tasks ${clause([...where, ...cursor])}
           ORDER BY updated_at DESC, id DESC LIMIT @limit`,
        ),
        count: this.db.prepare(`SELECT count(*) AS n FROM tasks ${clause(where)}`),
      };
      this.listSql.set(cacheKey, cached);
    }
    return cached;
  }
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

function storedOf(row: TaskRow): StoredTask {
  return { task: JSON.parse(row.task_json) as Task, lastSeq: row.last_seq };
}
