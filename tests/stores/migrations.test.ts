import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { artifactUpdate } from '../../main/domain/events.js';
import type { Task } from '../../main/domain/task.js';
import { LiveTask } from '../../main/runtime/live-task.js';
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

  it('reads a long reply stored whole before snapshots referred to events, and refers only to what it saw written', () => {
    // A task of the earlier format: its reply in its events and, whole, in its snapshot; it waits on a question.
    const waiting = makeTask({ state: 'input-required', id: 'old-reply' });
    const text = 'an old reply, "quoted", with a line\nbreak and é 😀 '.repeat(3_000);
    const pieces = [text.slice(0, 70_000), text.slice(70_000)];
    waiting.artifacts = [{ artifactId: 'old-reply-reply', name: 'reply', parts: [{ kind: 'text', text }] }];
    const events = pieces.map((piece, i): [number, string] => [
      3 + i,
      JSON.stringify(
        artifactUpdate(
          waiting,
          3 + i,
          { artifactId: 'old-reply-reply', name: 'reply', parts: [{ kind: 'text', text: piece }] },
          { append: i > 0, lastChunk: false },
        ),
      ),
    ]);
    const whole = JSON.stringify(waiting);
    firstSchemaDatabase(file, [{ task: waiting, events }]);

    const store = new SqliteTaskStore({ file });
    try {
      expect(JSON.stringify(store.get(waiting.id))).toBe(JSON.stringify({ task: waiting, lastSeq: 4 }));
      expect(JSON.stringify(store.tasksInStates(['input-required']))).toBe(`[${whole}]`);
      expect(
        JSON.stringify(store.list({ includeArtifacts: true, pageSize: 5, maxBytes: Buffer.byteLength(whole) }).tasks),
      ).toBe(`[${whole}]`);

      // Answered: a second turn with a reply of its own. The old reply's events were never seen by this
      // store, so the new snapshots keep that text whole; the new reply is referred to.
      const live = new LiveTask(store.get(waiting.id)!, store, [], () => undefined);
      live.setStatus('working');
      const second = 'the second turn. '.repeat(5_000);
      for (let at = 0; at < second.length; at += 1_000) {
        live.appendArtifact(
          { parts: [{ kind: 'text', text: second.slice(at, at + 1_000) }], append: at > 0, lastChunk: false },
          'old-reply-reply-2',
        );
      }
      live.setStatus('completed');
      store.flush();
      expect(JSON.stringify(store.get(waiting.id)!.task)).toBe(JSON.stringify(live.task));
    } finally {
      store.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.prepare('SELECT artifact_refs FROM tasks WHERE id = ?').pluck().get(waiting.id)).toBe(
        '[[1,0,6,90,85000]]',
      );
    } finally {
      db.close();
    }
  });
});
