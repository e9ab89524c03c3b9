/**
 * A long reply is stored once (stores/artifact-refs.ts): the snapshot refers to the artifact events that
 * hold its text. Every reader must get the bytes it got when the snapshot held the text itself. The tasks
 * here are written by the runtime's own LiveTask into a real SQLite file; the same tasks are then written
 * as the previous format did (the whole task in task_json, schema version 3) and both files are read.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { artifactUpdate, statusUpdate } from '../../main/domain/events.js';
import type { Part, Task } from '../../main/domain/task.js';
import type { TaskStore } from '../../main/ports.js';
import { LiveTask } from '../../main/runtime/live-task.js';
import { MIGRATIONS } from '../../main/stores/migrations.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { firstEvents, makeTask } from './make-task.js';

/** Reply text with what JSON escapes, several UTF-8 widths and surrogate pairs, in a fixed order. */
const WORDS = [
  'plain words ',
  'a "quote" ',
  'back\\slash ',
  'line\nbreak\t',
  'é ü ß ',
  '中文字 ',
  '\u0001\u001f ',
  '😀🎉 ',
];
function replyText(chars: number, seed: number): string {
  let text = '';
  for (let i = seed; text.length < chars; i += 1) text += WORDS[i % WORDS.length];
  return text.slice(0, chars);
}

/** Cuts `text` into chunks of `size` code units: some cuts fall inside a surrogate pair, as an agent's may. */
function chunksOf(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/** A task as the runtime runs it: created in the store, then changed only through LiveTask. */
function begin(store: TaskStore, spec: Parameters<typeof makeTask>[0] = {}): LiveTask {
  const task = makeTask(spec);
  const { stored } = store.create(task, firstEvents(task));
  const live = new LiveTask(stored, store, [], () => undefined);
  live.setStatus('working');
  return live;
}

function stream(store: TaskStore, live: LiveTask, artifactId: string, text: string, size = 997): void {
  chunksOf(text, size).forEach((piece, i) => {
    live.appendArtifact({ parts: [{ kind: 'text', text: piece }], append: i > 0, lastChunk: false }, artifactId);
    // Several commit groups per reply, as a streaming agent's pipe reads make.
    if (i % 7 === 6) store.flush();
  });
}

function part(live: LiveTask, artifactId: string, p: Part): void {
  live.appendArtifact({ parts: [p], append: true, lastChunk: false }, artifactId);
}

interface Written {
  /** Each task's whole JSON as the runtime holds it: what the previous format stored. */
  whole: Map<string, string>;
}

/** The tasks of the comparison, each ending with the runtime's task object serialized as `whole`. */
function writeTasks(store: SqliteTaskStore): Written {
  const whole = new Map<string, string>();
  const keep = (live: LiveTask) => {
    store.flush();
    whole.set(live.id, JSON.stringify(live.task));
  };

  // One long reply, cut inside surrogate pairs.
  const plain = begin(store, { id: 'plain' });
  const plainText = replyText(300_000, 0);
  expect(chunksOf(plainText, 997).some((c) => /[\ud800-\udbff]$/.test(c))).toBe(true);
  stream(store, plain, `${plain.id}-reply`, plainText);
  plain.setStatus('completed');
  keep(plain);

  // One artifact per turn: the first turn ends in a question, the second completes.
  const turns = begin(store, { id: 'turns' });
  stream(store, turns, `${turns.id}-reply`, replyText(120_000, 1));
  turns.setStatus('input-required', 'Which one?');
  store.flush();
  expect(JSON.stringify(store.get(turns.id)!.task)).toBe(JSON.stringify(turns.task));
  turns.setStatus('working');
  stream(store, turns, `${turns.id}-reply-2`, replyText(90_000, 2));
  turns.setStatus('completed');
  keep(turns);

  // Text, a file, text, data, text with metadata: the plain texts are referred to, the rest stays.
  const mixed = begin(store, { id: 'mixed' });
  const id = `${mixed.id}-reply`;
  stream(store, mixed, id, replyText(80_000, 3));
  part(mixed, id, { kind: 'file', file: { bytes: Buffer.from('PNG').toString('base64'), name: 'a.png' } });
  stream(store, mixed, id, replyText(70_000, 4));
  part(mixed, id, { kind: 'data', data: { passed: 12 } });
  part(mixed, id, { kind: 'text', text: replyText(70_000, 5), metadata: { note: 'kept whole' } });
  mixed.setStatus('completed');
  keep(mixed);

  // A second `append: false` for the same artifact: the runtime adds it to what is there (one text).
  const again = begin(store, { id: 'again' });
  stream(store, again, `${again.id}-reply`, replyText(70_000, 6));
  stream(store, again, `${again.id}-reply`, replyText(70_000, 7));
  again.setStatus('completed');
  keep(again);

  // The reply cut at max_artifact_bytes: what was kept, and metadata.truncated.
  const cut = begin(store, { id: 'cut' });
  stream(store, cut, `${cut.id}-reply`, replyText(100_000, 8));
  cut.patchMetadata({ truncated: { at: 100_000, droppedBytes: 4_321 } });
  cut.setStatus('completed');
  keep(cut);

  // Short: stays in the snapshot.
  const short = begin(store, { id: 'short' });
  stream(store, short, `${short.id}-reply`, replyText(10_000, 9));
  short.setStatus('completed');
  keep(short);

  // A reply that turned out to be a question: its text is taken off, the task waits (never pruned).
  const asked = begin(store, { id: 'asked' });
  stream(store, asked, `${asked.id}-reply`, replyText(90_000, 10));
  part(asked, `${asked.id}-reply`, { kind: 'data', data: { options: ['A', 'B'] } });
  asked.dropReplyText(`${asked.id}-reply`);
  asked.setStatus('input-required', 'A or B?');
  keep(asked);

  // A question whose first turn's reply stays: waiting with a long text (restart recovery reads it).
  const waits = begin(store, { id: 'waits' });
  stream(store, waits, `${waits.id}-reply`, replyText(90_000, 11));
  waits.setStatus('input-required', 'Go on?');
  keep(waits);

  // Canceled mid-reply, then a late fact: the late snapshot is written after the task finished.
  const canceled = begin(store, { id: 'canceled' });
  stream(store, canceled, `${canceled.id}-reply`, replyText(90_000, 12));
  canceled.setStatus('canceled', 'canceled by request');
  canceled.patchMetadata({ exitCode: 0 });
  canceled.saveLateFacts();
  keep(canceled);

  return { whole };
}

/** The previous format: schema version 3, the whole task in task_json, the same events. */
function previousFormat(fromFile: string, file: string, whole: Map<string, string>): void {
  const from = new Database(fromFile, { readonly: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    for (const step of MIGRATIONS.slice(0, 3)) db.exec(step);
    db.pragma('user_version = 3');
    const insert = db.prepare(
      `INSERT INTO tasks (id, context_id, agent, state, created_at, updated_at, last_seq, task_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const lastSeq = from.prepare('SELECT last_seq FROM tasks WHERE id = ?').pluck();
    for (const [id, json] of whole) {
      const task = JSON.parse(json) as Task;
      insert.run(
        id,
        task.contextId,
        task.metadata.agent,
        task.status.state,
        task.metadata.createdAt,
        task.status.timestamp,
        lastSeq.get(id),
        json,
      );
    }
    const event = db.prepare('INSERT INTO events (task_id, seq, event_json) VALUES (?, ?, ?)');
    for (const row of from.prepare('SELECT task_id, seq, event_json FROM events ORDER BY task_id, seq').all() as {
      task_id: string;
      seq: number;
      event_json: string;
    }[]) {
      event.run(row.task_id, row.seq, row.event_json);
    }
  } finally {
    db.close();
    from.close();
  }
}

/** Everything a reader gets, as JSON text: get, list pages (with and without artifacts, by bytes), events. */
function readAll(store: SqliteTaskStore, ids: readonly string[], sizes: readonly number[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const id of ids) {
    out[`get ${id}`] = JSON.stringify(store.get(id));
    out[`events ${id}`] = JSON.stringify(store.eventsAfter(id, 0));
    out[`events ${id} after 9`] = JSON.stringify(store.eventsAfter(id, 9));
  }
  out['waiting'] = JSON.stringify(store.tasksInStates(['input-required']));
  out['list'] = JSON.stringify(store.list({ includeArtifacts: true, pageSize: 50 }));
  out['list without artifacts'] = JSON.stringify(store.list({ includeArtifacts: false, pageSize: 50 }));
  // Byte budgets on both sides of each page cut: the whole task's size decides, as before.
  let total = 0;
  for (const size of sizes) {
    total += size;
    for (const maxBytes of [total - 1, total]) {
      const page = store.list({ includeArtifacts: true, pageSize: 50, maxBytes });
      out[`list within ${maxBytes}`] = JSON.stringify(page.tasks.map((t) => t.id)) + page.nextPageToken;
    }
  }
  return out;
}

describe('a long reply stored once, referred to by its snapshot', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'contactor-refs-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('every reader gets the bytes the previous format gave, and the long texts are not in the snapshots', () => {
    const file = join(dir, 'new.db');
    const store = new SqliteTaskStore({ file });
    let written: Written;
    try {
      written = writeTasks(store);
    } finally {
      store.close();
    }
    const { whole } = written;

    // What each row holds: the long plain texts are referred to, everything else is in the snapshot.
    const db = new Database(file, { readonly: true });
    const rows = Object.fromEntries(
      (
        db.prepare('SELECT id, artifact_refs, length(task_json) AS chars FROM tasks').all() as {
          id: string;
          artifact_refs: string | null;
          chars: number;
        }[]
      ).map((r) => [r.id, r.artifact_refs === null ? null : (JSON.parse(r.artifact_refs) as number[][])]),
    );
    // The snapshots that refer hold what is left: `mixed` its 70,000-character text with metadata only.
    const chars = db.prepare('SELECT length(task_json) FROM tasks WHERE id = ?').pluck();
    for (const id of ['plain', 'turns', 'cut', 'waits']) expect(chars.get(id), id).toBeLessThan(4_000);
    expect(chars.get('mixed')).toBeLessThan(90_000);
    db.close();
    // [artifact, part, first seq, last seq, characters]
    expect(rows).toEqual({
      plain: [[0, 0, 4, 304, 300_000]],
      turns: [
        [0, 0, 4, 124, 120_000],
        [1, 0, 127, 217, 90_000],
      ],
      mixed: [
        [0, 0, 4, 84, 80_000],
        [0, 2, 86, 156, 70_000],
      ],
      again: null,
      cut: [[0, 0, 4, 104, 100_000]],
      short: null,
      asked: null,
      waits: [[0, 0, 4, 94, 90_000]],
      canceled: null,
    });

    const old = join(dir, 'old.db');
    previousFormat(file, old, whole);
    const ids = [...whole.keys()];
    // Newest first, as list returns them; each task's size is its whole JSON in UTF-8.
    const sizes = ids
      .map((id) => JSON.parse(whole.get(id)!) as Task)
      .sort((a, b) => b.status.timestamp.localeCompare(a.status.timestamp) || b.id.localeCompare(a.id))
      .map((t) => Buffer.byteLength(whole.get(t.id)!));

    const current = new SqliteTaskStore({ file });
    const previous = new SqliteTaskStore({ file: old });
    try {
      for (const id of ids) expect(JSON.stringify(current.get(id)!.task), id).toBe(whole.get(id));
      expect(readAll(current, ids, sizes)).toEqual(readAll(previous, ids, sizes));
      // The budget is the whole task's size: a page of the first two tasks needs exactly both.
      const two = sizes[0]! + sizes[1]!;
      expect(current.list({ includeArtifacts: true, pageSize: 50, maxBytes: two }).tasks).toHaveLength(2);
      expect(current.list({ includeArtifacts: true, pageSize: 50, maxBytes: two - 1 }).tasks).toHaveLength(1);
    } finally {
      current.close();
      previous.close();
    }
  });

  it('pruning takes a finished task with the events its snapshot refers to; a waiting task keeps both', () => {
    const file = join(dir, 'prune.db');
    const store = new SqliteTaskStore({ file });
    try {
      const { whole } = writeTasks(store);
      expect(store.prune({ maxTasks: 0 })).toBe(7);
      const db = new Database(file, { readonly: true });
      const events = db.prepare('SELECT task_id, count(*) AS n FROM events GROUP BY task_id ORDER BY task_id').all();
      db.close();
      expect(events).toEqual([
        { task_id: 'asked', n: 95 },
        { task_id: 'waits', n: 94 },
      ]);
      for (const id of ['asked', 'waits']) expect(JSON.stringify(store.get(id)!.task)).toBe(whole.get(id));
    } finally {
      store.close();
    }
  });

  it('after a restart, a waiting task reads whole, and its next snapshot is stored whole (the events were not seen)', () => {
    const file = join(dir, 'restart.db');
    const first = new SqliteTaskStore({ file });
    let whole: Map<string, string>;
    try {
      whole = writeTasks(first).whole;
    } finally {
      first.close();
    }
    const second = new SqliteTaskStore({ file });
    try {
      const [waits] = second.tasksInStates(['input-required']).filter((t) => t.id === 'waits');
      expect(JSON.stringify(waits)).toBe(whole.get('waits'));
      // Recovery revives it and settles it, as restart recovery does with a task that was running.
      const live = new LiveTask(second.get('waits')!, second, [], () => undefined);
      live.setStatus('failed', 'the bridge restarted');
      second.flush();
      expect(JSON.stringify(second.get('waits')!.task)).toBe(JSON.stringify(live.task));
      const db = new Database(file, { readonly: true });
      expect(db.prepare("SELECT artifact_refs FROM tasks WHERE id = 'waits'").pluck().get()).toBeNull();
      db.close();
    } finally {
      second.close();
    }
  });

  it('a replayed key in the same group reads the snapshot with the events not yet written', () => {
    const store = new SqliteTaskStore({ file: join(dir, 'replay.db') });
    try {
      const task = makeTask({ id: 'keyed' });
      const key = { scope: 'claude', messageId: 'm-keyed', payloadHash: 'h' };
      const { stored } = store.create(task, firstEvents(task), key);
      const live = new LiveTask(stored, store, [], () => undefined);
      live.setStatus('working');
      const text = replyText(100_000, 13);
      chunksOf(text, 4096).forEach((piece, i) =>
        live.appendArtifact({ parts: [{ kind: 'text', text: piece }], append: i > 0, lastChunk: false }, 'r'),
      );
      live.setStatus('completed');
      // No flush: the chunks and the snapshot that refers to them are all still held by the group.
      const replay = makeTask({ id: 'keyed-again' });
      const again = store.create(replay, firstEvents(replay), key);
      expect(again.created).toBe(false);
      expect(JSON.stringify(again.stored.task)).toBe(JSON.stringify(live.task));
      expect(again.stored.task.artifacts[0]!.parts[0]).toEqual({ kind: 'text', text });
    } finally {
      store.close();
    }
  });

  it('after a lost group nothing refers to events it held: the next snapshot is stored whole', async () => {
    const file = join(dir, 'lost.db');
    const store = new SqliteTaskStore({ file });
    const saboteur = new Database(file);
    // RAISE(ROLLBACK) ends the group's transaction, as SQLite may on SQLITE_FULL or an I/O error.
    saboteur.exec(`CREATE TRIGGER lose_marked BEFORE INSERT ON events WHEN NEW.event_json LIKE '%lose-me%'
                   BEGIN SELECT RAISE(ROLLBACK, 'disk full'); END`);
    saboteur.close();
    try {
      const task = makeTask({ id: 'lossy' });
      const { stored } = store.create(task, firstEvents(task));
      const working = { ...task, status: { state: 'working' as const, timestamp: task.status.timestamp } };
      store.commit(task.id, [statusUpdate(task, 3, working.status, false)], working);
      const texts = [replyText(40_000, 14), replyText(40_000, 15)];
      texts.forEach((text, i) =>
        store.commit(task.id, [
          artifactUpdate(
            task,
            4 + i,
            { artifactId: 'r', parts: [{ kind: 'text', text }] },
            { append: i > 0, lastChunk: false },
          ),
        ]),
      );
      store.flush();
      expect(stored.lastSeq).toBe(2);
      const lost = `lose-me ${replyText(1_000, 16)}`;
      store.commit(task.id, [
        artifactUpdate(
          task,
          6,
          { artifactId: 'r', parts: [{ kind: 'text', text: lost }] },
          { append: true, lastChunk: false },
        ),
      ]);
      expect(() => store.flush()).toThrow(/disk full/);
      // Whoever settles the task next holds the text as it saw it, the lost chunk included; seq 6 is free again.
      const failed: Task = {
        ...working,
        status: { state: 'failed', timestamp: new Date(Date.parse(task.status.timestamp) + 1).toISOString() },
        artifacts: [{ artifactId: 'r', name: 'reply', parts: [{ kind: 'text', text: texts.join('') + lost }] }],
      };
      store.commit(task.id, [statusUpdate(task, 6, failed.status, true)], failed);
      store.flush();
      expect(JSON.stringify(store.get(task.id)!.task)).toBe(JSON.stringify(failed));
    } finally {
      store.close();
    }
  });

  it('a write that throws after its events were seen leaves nothing of them to refer to', () => {
    const store = new SqliteTaskStore({ file: join(dir, 'throws.db') });
    try {
      const task = makeTask({ id: 'throws' });
      store.create(task, firstEvents(task));
      const chunk = (seq: number, text: string, append = true) =>
        artifactUpdate(task, seq, { artifactId: 'r', parts: [{ kind: 'text', text }] }, { append, lastChunk: false });
      const head = replyText(70_000, 17);
      store.commit(task.id, [chunk(3, head, false)]);
      store.flush();
      // The runtime appends a chunk to its task, then commits it with a snapshot that cannot be serialized.
      const phantom = replyText(500, 18);
      const unserializable = {
        ...task,
        artifacts: [{ artifactId: 'r', parts: [{ kind: 'text' as const, text: head + phantom }] }],
        metadata: { ...task.metadata, size: 1n },
      } as unknown as Task;
      expect(() => store.commit(task.id, [chunk(4, phantom)], unserializable)).toThrow(/BigInt/);
      // Its seq was not taken: the next chunk comes with it; the task still holds the phantom text too.
      const next = replyText(500, 19);
      store.commit(task.id, [chunk(4, next)]);
      const done: Task = {
        ...task,
        status: { state: 'completed', timestamp: new Date(Date.parse(task.status.timestamp) + 1).toISOString() },
        artifacts: [{ artifactId: 'r', name: 'reply', parts: [{ kind: 'text', text: head + phantom + next }] }],
      };
      store.commit(task.id, [statusUpdate(task, 5, done.status, true)], done);
      store.flush();
      expect(JSON.stringify(store.get(task.id)!.task)).toBe(JSON.stringify(done));
    } finally {
      store.close();
    }
  });

  it('refuses to read a snapshot whose events were changed outside contactor, naming the task', () => {
    const file = join(dir, 'damaged.db');
    const store = new SqliteTaskStore({ file });
    try {
      writeTasks(store);
    } finally {
      store.close();
    }
    const db = new Database(file);
    db.prepare("DELETE FROM events WHERE task_id = 'plain' AND seq = 100").run();
    db.close();
    const reopened = new SqliteTaskStore({ file });
    try {
      expect(() => reopened.get('plain')).toThrow(
        /stored task plain is damaged: events 4-304 hold 299003 of the 300000/,
      );
      expect(JSON.stringify(reopened.get('short')!.task)).toContain('"state":"completed"');
    } finally {
      reopened.close();
    }
  });
});
