/**
 * The worker-thread store (main/stores/worker/): the TaskStore contract, the file it writes read back by
 * the in-loop store and by a bare connection, the held group, a lost group, and a kill -9.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../../main/stores/sqlite.js';
import { WorkerTaskStore } from '../../../main/stores/worker/worker-task-store.js';
import { runUntilKilled } from '../crash-child.js';
import { chunk, firstEvents, makeTask, moved, textArtifact } from '../make-task.js';
import { describeTaskStoreContract } from '../task-store-contract.js';

describeTaskStoreContract('WorkerTaskStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'contactor-worker-store-'));
  const store = new WorkerTaskStore({ file: join(dir, 'tasks.db') });
  return {
    store,
    cleanup: () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
    settled: () => new Promise<void>((resolve) => store.afterCommit(() => resolve())),
  };
});

describe('WorkerTaskStore on disk', () => {
  let dir: string;
  let file: string;
  let store: WorkerTaskStore;
  let reader: Database.Database;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'contactor-worker-store-'));
    file = join(dir, 'tasks.db');
    store = new WorkerTaskStore({ file });
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
  const committed = () => new Promise<Error | undefined>((resolve) => store.afterCommit(resolve));

  it('tells afterCommit only once the writer thread committed the turn, and the file holds it then', async () => {
    const a = makeTask();
    const b = makeTask();
    store.create(a, firstEvents(a));
    store.create(b, firstEvents(b));
    const seenAtCallback: unknown[] = [];
    const heard = new Promise<void>((resolve) =>
      store.afterCommit(() => {
        seenAtCallback.push(onDisk(a.id), onDisk(b.id));
        resolve();
      }),
    );
    expect(onDisk(a.id)).toBeUndefined();
    await heard;
    expect(seenAtCallback).toEqual([
      { state: 'submitted', lastSeq: 2 },
      { state: 'submitted', lastSeq: 2 },
    ]);
  });

  it("a turn's change to a task whose creation is still on its way builds on it (no read of the file)", async () => {
    const task = makeTask();
    store.create(task, firstEvents(task));
    await new Promise<void>((resolve) => setImmediate(resolve));
    // The creation's group is sent, perhaps not yet committed: the next turn's seq follows it all the same.
    const { task: working, event } = moved(task, 'working', 3);
    store.commit(task.id, [event], working);
    expect(await committed()).toBeUndefined();
    expect(onDisk(task.id)).toEqual({ state: 'working', lastSeq: 3 });
    expect(eventsOnDisk(task.id)).toEqual([2, 3]);
  });

  it('checks the seq of a change against the writes still on their way, not against the file', async () => {
    const task = makeTask();
    store.create(task, firstEvents(task));
    store.flush();
    // A large snapshot keeps the writer busy for a while after the turn ends (tens of ms).
    const big = { ...task, artifacts: [textArtifact('x'.repeat(16 * 1024 * 1024))] };
    const { task: working, event } = moved(big, 'working', 3);
    store.commit(task.id, [event], working);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(onDisk(task.id)).toEqual({ state: 'submitted', lastSeq: 2 });
    // The file still says seq 2; the store knows seq 3 is taken.
    expect(() => store.commit(task.id, [chunk(task, 3, 'again')])).toThrow(/does not follow seq 3/);
    store.flush();
    expect(eventsOnDisk(task.id)).toEqual([2, 3]);
  });

  it('inserts a task created and finished in one turn once, finished, with all its events', () => {
    const spy = new Database(file);
    spy.exec(`CREATE TABLE row_writes (what TEXT NOT NULL);
              CREATE TRIGGER log_inserts AFTER INSERT ON tasks BEGIN INSERT INTO row_writes VALUES ('insert ' || NEW.state); END;
              CREATE TRIGGER log_updates AFTER UPDATE ON tasks BEGIN INSERT INTO row_writes VALUES ('update ' || NEW.state); END`);
    spy.close();
    const task = makeTask();
    store.create(task, firstEvents(task));
    const { task: working, event: toWorking } = moved(task, 'working', 3);
    store.commit(task.id, [toWorking], working);
    store.commit(task.id, [chunk(task, 4, 'reply')]);
    const { task: done, event: toDone } = moved(working, 'completed', 5);
    store.commit(task.id, [toDone], done);
    expect(onDisk(task.id)).toBeUndefined();
    store.flush();
    expect(reader.prepare('SELECT what FROM row_writes').pluck().all()).toEqual(['insert completed']);
    expect(onDisk(task.id)).toEqual({ state: 'completed', lastSeq: 5 });
    expect(eventsOnDisk(task.id)).toEqual([2, 3, 4, 5]);
  });

  it('a read waits for the writes before it, so it sees them and the file already holds them', () => {
    const task = makeTask();
    store.create(task, firstEvents(task));
    const { task: working, event } = moved(task, 'working', 3);
    store.commit(task.id, [event], working);
    expect(store.get(task.id)).toEqual({ task: working, lastSeq: 3 });
    expect(onDisk(task.id)).toEqual({ state: 'working', lastSeq: 3 });
  });

  it('a replayed messageId whose first send is still being committed finds that task, not a new one', () => {
    const task = makeTask();
    const key = { scope: 'claude', messageId: 'm-1', payloadHash: 'h-1' };
    store.create(task, firstEvents(task), key);
    const again = makeTask();
    const replay = store.create(again, firstEvents(again), key);
    expect(replay.created).toBe(false);
    expect(replay.stored.task.id).toBe(task.id);
    expect(replay.payloadHash).toBe('h-1');
    expect(reader.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(1);
  });

  it('a lost group and every group sent on top of it are lost; then the store goes on from the file', async () => {
    const task = makeTask();
    store.create(task, firstEvents(task));
    store.flush();
    // A write the schema accepts but the file refuses, as on a full disk: here one planted event text.
    const saboteur = new Database(file);
    saboteur.exec(`CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.event_json LIKE '%planted-failure%'
                   BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    saboteur.close();
    const heard: string[] = [];
    store.commit(task.id, [chunk(task, 3, 'planted-failure')]);
    store.afterCommit((lost) => heard.push(`chunk 3 ${lost ? `lost: ${lost.message}` : 'stored'}`));
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Sent in the next turn, built on seq 3: if seq 3 is lost, this one must not be stored after a gap.
    store.commit(task.id, [chunk(task, 4, 'fine')]);
    store.afterCommit((lost) => heard.push(`chunk 4 ${lost ? 'lost' : 'stored'}`));
    const last = committed();
    expect(await last).toBeInstanceOf(Error);
    expect(heard).toEqual(['chunk 3 lost: The task store could not commit its writes: disk full', 'chunk 4 lost']);
    expect(eventsOnDisk(task.id)).toEqual([2]);
    // Starting over from the file: the task's last stored seq is 2 again.
    const { task: working, event } = moved(task, 'working', 3);
    store.commit(task.id, [event], working);
    expect(await committed()).toBeUndefined();
    expect(eventsOnDisk(task.id)).toEqual([2, 3]);
    expect(store.get(task.id)?.task.status.state).toBe('working');
  });

  it('writes the file the in-loop store reads, and reads the file it writes', () => {
    const task = makeTask({ artifacts: [textArtifact('reply')] });
    store.create(task, firstEvents(task), { scope: 'claude', messageId: 'm-1', payloadHash: 'h-1' });
    const { task: working, event } = moved(task, 'working', 4);
    store.commit(task.id, [chunk(task, 3, 'partial'), event], working);
    store.close();
    const inLoop = new SqliteTaskStore({ file });
    const other = makeTask();
    try {
      expect(inLoop.get(task.id)).toEqual({ task: working, lastSeq: 4 });
      expect(inLoop.eventsAfter(task.id, 0).map((e) => e.seq)).toEqual([2, 3, 4]);
      inLoop.create(other, firstEvents(other));
    } finally {
      inLoop.close();
    }
    store = new WorkerTaskStore({ file });
    expect(store.get(other.id)?.lastSeq).toBe(2);
    const replay = makeTask();
    expect(
      store.create(replay, firstEvents(replay), { scope: 'claude', messageId: 'm-1', payloadHash: 'h-2' }),
    ).toEqual({
      stored: { task: working, lastSeq: 4 },
      created: false,
      payloadHash: 'h-1',
    });
  });

  it('closing removes the WAL: the writer thread is the last connection to close', () => {
    const task = makeTask();
    store.create(task, firstEvents(task));
    store.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(onDisk(task.id)).toEqual({ state: 'submitted', lastSeq: 2 });
  });

  it('prunes finished tasks on the writer thread', () => {
    const done = makeTask({ state: 'completed', timestamp: '2020-01-01T00:00:00.000Z' });
    const open = makeTask({ state: 'working', timestamp: '2020-01-01T00:00:00.000Z' });
    store.create(done, firstEvents(done));
    store.create(open, firstEvents(open));
    expect(store.prune({ olderThan: '2021-01-01T00:00:00.000Z' })).toBe(1);
    expect(onDisk(done.id)).toBeUndefined();
    expect(onDisk(open.id)).toEqual({ state: 'working', lastSeq: 2 });
  });
});

describe('WorkerTaskStore and kill -9', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'contactor-worker-store-'));
    file = join(dir, 'tasks.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // 'turns': ids printed from afterCommit, as a send is answered; 'flush': printed after a blocking flush.
  for (const mode of ['turns', 'flush'] as const) {
    it(`keeps every task it confirmed (${mode}) when the process is killed with SIGKILL`, async () => {
      const {
        lines: reported,
        signal,
        stderr,
      } = await runUntilKilled('./worker/crash-writer-worker.ts', [file, mode], 300);
      expect(signal, `writer exited on its own: ${stderr}`).toBe('SIGKILL');
      expect(reported.length).toBeGreaterThanOrEqual(300);
      expect(existsSync(`${file}-wal`) && statSync(`${file}-wal`).size).toBeGreaterThan(0);
      const store = new SqliteTaskStore({ file });
      try {
        for (const id of reported) {
          const stored = store.get(id);
          expect(stored?.lastSeq, id).toBe(4);
          expect(stored?.task.status.state).toBe('working');
          expect(store.eventsAfter(id, 0).map((e) => e.seq)).toEqual([2, 3, 4]);
        }
        const all = store.list({ pageSize: 100_000, includeArtifacts: false });
        for (const task of all.tasks) {
          const { lastSeq } = store.get(task.id)!;
          expect(store.eventsAfter(task.id, 0).at(-1)?.seq).toBe(lastSeq);
        }
      } finally {
        store.close();
      }
    });
  }
});
