import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../main/stores/migrations.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { chunk, firstEvents, makeTask, moved, textArtifact } from './make-task.js';
import { runUntilKilled } from './crash-child.js';
import { describeTaskStoreContract } from './task-store-contract.js';

describeTaskStoreContract('SqliteTaskStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'contactor-store-'));
  const store = new SqliteTaskStore({ file: join(dir, 'tasks.db') });
  return {
    store,
    cleanup: () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SqliteTaskStore on disk', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'contactor-store-'));
    file = join(dir, 'tasks.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const readPragmas = () => {
    const db = new Database(file, { readonly: true });
    try {
      return {
        version: db.pragma('user_version', { simple: true }),
        journal: db.pragma('journal_mode', { simple: true }),
      };
    } finally {
      db.close();
    }
  };

  it('keeps tasks, events and idempotency keys across close and reopen', () => {
    const task = makeTask({ artifacts: [textArtifact('reply')] });
    const first = new SqliteTaskStore({ file });
    first.create(task, firstEvents(task), { scope: 'claude', messageId: 'm-1', payloadHash: 'h-1' });
    const { task: working, event } = moved(task, 'working', 4);
    first.commit(task.id, [chunk(task, 3, 'partial'), event], working);
    const eventsBefore = first.eventsAfter(task.id, 0);
    first.close();

    const second = new SqliteTaskStore({ file });
    try {
      expect(second.get(task.id)).toEqual({ task: working, lastSeq: 4 });
      expect(second.eventsAfter(task.id, 0)).toEqual(eventsBefore);
      expect(second.list({ pageSize: 10, includeArtifacts: true, states: ['working'] }).tasks).toEqual([working]);
      const replay = makeTask();
      const again = second.create(replay, firstEvents(replay), {
        scope: 'claude',
        messageId: 'm-1',
        payloadHash: 'h-2',
      });
      expect(again).toMatchObject({ created: false, payloadHash: 'h-1', stored: { task: working } });
    } finally {
      second.close();
    }
  });

  it('a write SQLite answers by rolling the whole group back loses that group, and later writes start a new one', async () => {
    const store = new SqliteTaskStore({ file });
    // RAISE(ROLLBACK) ends the open transaction, as SQLite may on SQLITE_FULL or an I/O error mid-group.
    const saboteur = new Database(file);
    saboteur.exec(`CREATE TRIGGER roll_back BEFORE INSERT ON tasks WHEN NEW.task_json LIKE '%roll-me-back%'
                   BEGIN SELECT RAISE(ROLLBACK, 'disk full'); END`);
    saboteur.close();
    try {
      const heard: string[] = [];
      const before = makeTask();
      store.create(before, firstEvents(before));
      store.afterCommit((lost) => heard.push(`before ${lost ? 'lost' : 'stored'}`));
      const marked = makeTask({ id: 'roll-me-back' });
      expect(() => store.create(marked, firstEvents(marked))).toThrow(/disk full/);
      const after = makeTask();
      store.create(after, firstEvents(after));
      store.afterCommit((lost) => heard.push(`after ${lost ? 'lost' : 'stored'}`));
      await new Promise((resolve) => setImmediate(resolve));
      // Reported as it is on disk: the first group is gone, the write after it is a group of its own, stored.
      expect(heard).toEqual(['before lost', 'after stored']);
      expect(store.get(before.id)).toBeUndefined();
      expect(store.get(after.id)?.task).toEqual(after);
    } finally {
      store.close();
    }
  });

  it('sets the schema version and WAL mode on the file', () => {
    new SqliteTaskStore({ file }).close();
    expect(readPragmas()).toEqual({ version: SCHEMA_VERSION, journal: 'wal' });
  });

  it('refuses a file that is not a database, naming it and how to move it aside, and leaves it as it was', () => {
    const garbage = Buffer.from('this is not a sqlite database, just some bytes '.repeat(100));
    writeFileSync(file, garbage);
    expect(() => new SqliteTaskStore({ file })).toThrow(`mv "${file}" "${file}.broken"`);
    expect(readFileSync(file).equals(garbage)).toBe(true);
  });

  it('refuses a database whose pages were damaged', () => {
    const store = new SqliteTaskStore({ file });
    for (let i = 0; i < 300; i++) {
      const task = makeTask({ artifacts: [textArtifact('y'.repeat(500))] });
      store.create(task, firstEvents(task));
    }
    store.close();
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    expect(bytes.length).toBeGreaterThan(pageSize * 10);
    bytes.fill(0xa5, pageSize * 2, pageSize * 8);
    writeFileSync(file, bytes);
    expect(() => new SqliteTaskStore({ file })).toThrow(/not a readable SQLite database.*mv "/);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('after a stop that left its WAL behind, checks every page, not only the b-tree roots', () => {
    const store = new SqliteTaskStore({ file });
    for (let i = 0; i < 300; i++) {
      const task = makeTask({ artifacts: [textArtifact('y'.repeat(500))] });
      store.create(task, firstEvents(task));
    }
    store.close();
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    // The last page is a leaf deep in a table, never a root: only the full check reads it.
    bytes.fill(0xa5, bytes.length - pageSize + 8, bytes.length);
    writeFileSync(file, bytes);
    // What a kill -9 leaves: the WAL file (here empty, so it holds nothing to replay).
    writeFileSync(`${file}-wal`, '');
    expect(() => new SqliteTaskStore({ file })).toThrow(/not a readable SQLite database \(integrity check: .*mv "/);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('refuses a file written by a newer schema, without touching it', () => {
    new SqliteTaskStore({ file }).close();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const named = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); // a Windows path is full of backslashes
    expect(() => new SqliteTaskStore({ file })).toThrow(new RegExp(`${named}.*newer than this contactor knows`));
    expect(readPragmas().version).toBe(SCHEMA_VERSION + 1);
  });

  it('names the path when the folder does not exist', () => {
    const missing = join(dir, 'no-such-folder', 'tasks.db');
    expect(() => new SqliteTaskStore({ file: missing })).toThrow(missing);
  });

  it('keeps every committed task when the writing process is killed with SIGKILL', async () => {
    const { lines: reported, signal, stderr } = await runUntilKilled('./crash-writer.ts', [file], 300);
    expect(signal, `writer exited on its own: ${stderr}`).toBe('SIGKILL');
    expect(reported.length).toBeGreaterThanOrEqual(300);
    // The commits were still in the WAL when the process died, so reopening had to recover from it.
    expect(existsSync(`${file}-wal`) && statSync(`${file}-wal`).size).toBeGreaterThan(0);

    const store = new SqliteTaskStore({ file });
    try {
      for (const id of reported) {
        const stored = store.get(id);
        expect(stored?.lastSeq, id).toBe(4);
        expect(stored?.task.status.state).toBe('working');
        expect(store.eventsAfter(id, 0).map((e) => e.seq)).toEqual([2, 3, 4]);
      }
      // A task whose commit was cut off is present whole as created, never half-written.
      const all = store.list({ pageSize: 100_000, includeArtifacts: false });
      expect(all.totalSize).toBeGreaterThanOrEqual(reported.length);
      for (const task of all.tasks) {
        const { lastSeq } = store.get(task.id)!;
        expect(store.eventsAfter(task.id, 0).at(-1)?.seq).toBe(lastSeq);
      }
    } finally {
      store.close();
    }
  });
});

describe('SqliteTaskStore group commit', () => {
  let dir: string;
  let file: string;
  let store: SqliteTaskStore;
  let reader: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'contactor-store-'));
    file = join(dir, 'tasks.db');
    store = new SqliteTaskStore({ file });
    // Another connection sees only what is committed to the file: what a crash would leave.
    reader = new Database(file, { readonly: true });
  });
  afterEach(() => {
    reader.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const onDisk = (id: string) =>
    reader.prepare('SELECT state, last_seq AS lastSeq FROM tasks WHERE id = ?').get(id) as
      { state: string; lastSeq: number } | undefined;
  const eventsOnDisk = (id: string) =>
    reader.prepare('SELECT seq FROM events WHERE task_id = ? ORDER BY seq').pluck().all(id) as number[];

  it('holds the writes of one turn until they commit together, and tells afterCommit only then', async () => {
    const a = makeTask();
    const b = makeTask();
    store.create(a, firstEvents(a));
    store.create(b, firstEvents(b));
    const seenAtCallback: unknown[] = [];
    store.afterCommit(() => seenAtCallback.push(onDisk(a.id), onDisk(b.id)));
    expect(onDisk(a.id)).toBeUndefined();
    expect(seenAtCallback).toEqual([]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(seenAtCallback).toEqual([
      { state: 'submitted', lastSeq: 2 },
      { state: 'submitted', lastSeq: 2 },
    ]);
  });

  it('writes a task created and finished in one turn once, finished, with all its events', () => {
    const task = makeTask();
    store.create(task, firstEvents(task));
    const { task: working, event: toWorking } = moved(task, 'working', 3);
    store.commit(task.id, [toWorking], working);
    store.commit(task.id, [chunk(task, 4, 'reply')]);
    const { task: done, event: toDone } = moved(working, 'completed', 5);
    store.commit(task.id, [toDone], done);
    expect(onDisk(task.id)).toBeUndefined();
    store.flush();
    expect(onDisk(task.id)).toEqual({ state: 'completed', lastSeq: 5 });
    expect(eventsOnDisk(task.id)).toEqual([2, 3, 4, 5]);
  });

  it('coalesces the snapshots of one task in one group into one UPDATE, with the last; every event is kept', () => {
    const task = makeTask();
    store.create(task, firstEvents(task));
    store.flush();
    // A trigger logs every UPDATE of a task row that reaches the file.
    const spy = new Database(file);
    spy.exec(`CREATE TABLE row_updates (state TEXT NOT NULL);
              CREATE TRIGGER log_row_updates AFTER UPDATE ON tasks BEGIN INSERT INTO row_updates VALUES (NEW.state); END`);
    spy.close();
    const { task: working, event: toWorking } = moved(task, 'working', 3);
    store.commit(task.id, [toWorking], working);
    store.commit(task.id, [chunk(task, 4, 'reply')]);
    const { task: done, event: toDone } = moved(working, 'completed', 5);
    store.commit(task.id, [toDone], done);
    store.flush();
    expect(reader.prepare('SELECT state FROM row_updates').pluck().all()).toEqual(['completed']);
    expect(onDisk(task.id)).toEqual({ state: 'completed', lastSeq: 5 });
    expect(eventsOnDisk(task.id)).toEqual([2, 3, 4, 5]);
    expect(store.get(task.id)?.task).toEqual(done);
  });

  it('a lost group loses every change it coalesced: each one hears so, and the row stays as last committed', () => {
    const task = makeTask();
    store.create(task, firstEvents(task));
    store.flush();
    // RAISE(ROLLBACK) ends the transaction, as SQLite may on SQLITE_FULL, here at the coalesced UPDATE.
    const saboteur = new Database(file);
    saboteur.exec(`CREATE TRIGGER roll_back BEFORE UPDATE ON tasks WHEN NEW.state = 'completed'
                   BEGIN SELECT RAISE(ROLLBACK, 'disk full'); END`);
    saboteur.close();
    const heard: string[] = [];
    const { task: working, event: toWorking } = moved(task, 'working', 3);
    store.commit(task.id, [toWorking], working);
    store.afterCommit((lost) => heard.push(`working ${lost ? 'lost' : 'stored'}`));
    const { task: done, event: toDone } = moved(working, 'completed', 4);
    store.commit(task.id, [toDone], done);
    store.afterCommit((lost) => heard.push(`completed ${lost ? 'lost' : 'stored'}`));
    expect(() => store.flush()).toThrow(/disk full/);
    // The working snapshot was never written on its own, and its change is lost with the group.
    expect(heard).toEqual(['working lost', 'completed lost']);
    expect(onDisk(task.id)).toEqual({ state: 'submitted', lastSeq: 2 });
    expect(eventsOnDisk(task.id)).toEqual([2]);
  });

  it('commits before every read, so a read never shows what a crash could still lose', () => {
    const task = makeTask();
    store.create(task, firstEvents(task));
    expect(store.get(task.id)?.lastSeq).toBe(2);
    expect(onDisk(task.id)).toEqual({ state: 'submitted', lastSeq: 2 });
  });

  it('commits what is pending when closed', () => {
    const task = makeTask();
    store.create(task, firstEvents(task));
    store.close();
    expect(onDisk(task.id)).toEqual({ state: 'submitted', lastSeq: 2 });
  });
});
