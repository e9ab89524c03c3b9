import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '../../main/domain/task.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../main/stores/migrations.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { chunk, firstEvents, makeTask, moved } from './make-task.js';

/**
 * A database written by an earlier contactor: only the first schema step applied, rows inserted with the
 * statements that release's store used (stores/pending-writes.ts, sqlite.ts at that version).
 */
function firstSchemaDatabase(file: string, rows: { task: Task; key?: string; events?: [number, string][] }[]) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(MIGRATIONS[0]!);
  db.pragma('user_version = 1');
  const insert = db.prepare(
    `INSERT INTO tasks (id, context_id, agent, state, created_at, updated_at, last_seq, key_scope, message_id,
                        payload_hash, task_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const event = db.prepare('INSERT INTO events (task_id, seq, event_json) VALUES (?, ?, ?)');
  for (const { task, key, events = [] } of rows) {
    const { id, contextId, status, metadata } = task;
    const lastSeq = events.at(-1)?.[0] ?? 2;
    insert.run(
      id,
      contextId,
      metadata.agent,
      status.state,
      metadata.createdAt,
      status.timestamp,
      lastSeq,
      key ? metadata.agent : null,
      key ?? null,
      key ? `hash-of-${key}` : null,
      JSON.stringify(task),
    );
    for (const [seq, json] of events) event.run(id, seq, json);
  }
  db.close();
}

/** Each index on the last update, with the sort order of each of its columns (PRAGMA index_xinfo). */
function indexOrders(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  try {
    const names = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE 'tasks_by_%' ORDER BY name")
      .pluck()
      .all() as string[];
    return Object.fromEntries(
      names.map((name) => {
        const columns = db.pragma(`index_xinfo(${name})`) as { name: string | null; desc: number; key: number }[];
        const keyColumns = columns.filter((c) => c.key === 1);
        return [name, keyColumns.map((c) => `${c.name}${c.desc ? ' DESC' : ''}`).join(', ')];
      }),
    );
  } finally {
    db.close();
  }
}

describe('task database migrations', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'contactor-migrate-'));
    file = join(dir, 'tasks.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a new database gets the indexes on the last update ascending', () => {
    new SqliteTaskStore({ file }).close();
    expect(indexOrders(file)).toEqual({
      tasks_by_agent: 'agent, updated_at, id',
      tasks_by_context: 'context_id, updated_at, id',
      tasks_by_creator: 'created_by_agent, updated_at, id',
      tasks_by_state: 'state, updated_at, id',
      tasks_by_update: 'updated_at, id',
    });
  });

  it('brings a first-schema database with tasks to the ascending indexes, keeping tasks, events, order and idempotency keys', () => {
    const old = makeTask({ state: 'completed', agent: 'claude', contextId: 'ctx-shared' });
    const running = makeTask({ state: 'working', agent: 'codex', contextId: 'ctx-shared' });
    const partial = chunk(running, 3, 'partial');
    const newest = makeTask({ state: 'completed', agent: 'claude' });
    firstSchemaDatabase(file, [
      { task: old, key: 'm-old' },
      { task: running, key: 'm-running', events: [[3, JSON.stringify(partial)]] },
      { task: newest },
    ]);
    expect(indexOrders(file).tasks_by_update).toBe('updated_at DESC, id DESC');

    const store = new SqliteTaskStore({ file });
    try {
      expect(indexOrders(file)).toEqual({
        tasks_by_agent: 'agent, updated_at, id',
        tasks_by_context: 'context_id, updated_at, id',
        tasks_by_creator: 'created_by_agent, updated_at, id',
        tasks_by_state: 'state, updated_at, id',
        tasks_by_update: 'updated_at, id',
      });
      // Newest first, page by page, as before the migration.
      const first = store.list({ includeArtifacts: true, pageSize: 2 });
      expect(first.tasks.map((t) => t.id)).toEqual([newest.id, running.id]);
      expect(first.totalSize).toBe(3);
      const second = store.list({ includeArtifacts: true, pageSize: 2, pageToken: first.nextPageToken });
      expect(second.tasks.map((t) => t.id)).toEqual([old.id]);
      expect(second.nextPageToken).toBe('');
      expect(
        store.list({ includeArtifacts: true, pageSize: 10, contextId: 'ctx-shared' }).tasks.map((t) => t.id),
      ).toEqual([running.id, old.id]);
      expect(store.list({ includeArtifacts: true, pageSize: 10, agent: 'claude' }).tasks.map((t) => t.id)).toEqual([
        newest.id,
        old.id,
      ]);
      expect(
        store.list({ includeArtifacts: true, pageSize: 10, states: ['completed'] }).tasks.map((t) => t.id),
      ).toEqual([newest.id, old.id]);
      expect(store.tasksInStates(['working']).map((t) => t.id)).toEqual([running.id]);
      expect(store.get(running.id)).toEqual({ task: running, lastSeq: 3 });
      expect(store.eventsAfter(running.id, 0)).toEqual([partial]);

      // A replayed messageId still finds the task it created before the migration, and never a new one.
      const replay = makeTask();
      expect(
        store.create(replay, firstEvents(replay), { scope: 'claude', messageId: 'm-old', payloadHash: 'h' }),
      ).toEqual({ stored: { task: old, lastSeq: 2 }, created: false, payloadHash: 'hash-of-m-old' });
      expect(store.get(replay.id)).toBeUndefined();
      // New writes land in the migrated indexes and are found by them.
      const fresh = makeTask({ agent: 'codex', contextId: 'ctx-shared' });
      expect(
        store.create(fresh, firstEvents(fresh), { scope: 'codex', messageId: 'm-new', payloadHash: 'h' }).created,
      ).toBe(true);
      const { task: done, event } = moved(running, 'completed', 4);
      store.commit(running.id, [event], done);
      expect(
        store.list({ includeArtifacts: true, pageSize: 10, contextId: 'ctx-shared' }).tasks.map((t) => t.id),
      ).toEqual([running.id, fresh.id, old.id]);
      expect(store.prune({ maxTasks: 3 })).toBe(1);
      expect(store.get(old.id)).toBeUndefined();
    } finally {
      store.close();
    }
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });
  it("fills in the creating agent of tasks stored before it was a column, so an agent's questions are found by it", () => {
    const created = (createdBy: string | undefined) => {
      const task = makeTask({ agent: 'worker' });
      if (createdBy !== undefined) task.metadata.createdBy = createdBy;
      return task;
    };
    const boss = created('agent:boss');
    const rows = [boss, created('person'), created(undefined), created('agent:bossy'), created('agent:')];
    firstSchemaDatabase(
      file,
      rows.map((task) => ({ task })),
    );
    const store = new SqliteTaskStore({ file });
    try {
      expect(
        store.list({ includeArtifacts: false, pageSize: 10, createdByAgent: 'boss' }).tasks.map((t) => t.id),
      ).toEqual([boss.id]);
    } finally {
      store.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT id, created_by_agent FROM tasks ORDER BY id').all()).toEqual(
        rows.map((t, i) => ({ id: t.id, created_by_agent: ['boss', null, null, 'bossy', ''][i] })),
      );
      // The page and its count are read through the partial index, newest first, never by a scan.
      const plan = (sql: string) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ a: 'boss', limit: 3 }) as { detail: string }[])
          .map((row) => row.detail)
          .join('; ');
      expect(
        plan(
          'SELECT id, task_json FROM tasks WHERE created_by_agent = @a ORDER BY updated_at DESC, id DESC LIMIT @limit',
        ),
      ).toBe('SEARCH tasks USING INDEX tasks_by_creator (created_by_agent=?)');
      expect(plan('SELECT count(*) AS n FROM tasks WHERE created_by_agent = @a')).toBe(
        'SEARCH tasks USING COVERING INDEX tasks_by_creator (created_by_agent=?)',
      );
    } finally {
      db.close();
    }
  });
});
