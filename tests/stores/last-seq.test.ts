/**
 * A task's last seq without a row write per event (docs/benchmark.md): events committed without a snapshot (a
 * streamed reply's chunks) leave the task row untouched, and the store recovers the last seq from the
 * events themselves — after a reopen and after a kill -9 alike — so the next event still follows it.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { chunk, firstEvents, makeTask, moved } from './make-task.js';
import { runUntilKilled } from './crash-child.js';

describe('SqliteTaskStore last seq', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'contactor-store-'));
    file = join(dir, 'tasks.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('commits events alone without rewriting the task row', () => {
    const store = new SqliteTaskStore({ file });
    try {
      const task = makeTask();
      store.create(task, firstEvents(task), { scope: 'claude', messageId: 'm-1', payloadHash: 'h' });
      store.flush();
      // A second connection records every write to the row (what the pages of a commit would carry).
      const watcher = new Database(file);
      watcher.exec(`CREATE TABLE row_writes (id TEXT);
        CREATE TRIGGER count_row_writes AFTER UPDATE ON tasks BEGIN INSERT INTO row_writes VALUES (new.id); END;`);
      for (let seq = 3; seq <= 12; seq++) {
        store.commit(task.id, [chunk(task, seq, `part ${seq}`)]);
        store.flush();
      }
      expect(watcher.prepare('SELECT count(*) FROM row_writes').pluck().get()).toBe(0);
      watcher.close();
      expect(store.get(task.id)?.lastSeq).toBe(12);
      expect(store.eventsAfter(task.id, 10).map((e) => e.seq)).toEqual([11, 12]);
    } finally {
      store.close();
    }
  });

  it('recovers the last seq from the events after a reopen, for reads, replays and the next append', () => {
    const task = makeTask();
    const key = { scope: 'claude', messageId: 'm-2', payloadHash: 'h' };
    const first = new SqliteTaskStore({ file });
    first.create(task, firstEvents(task), key);
    const { task: working, event } = moved(task, 'working', 3);
    first.commit(task.id, [event], working);
    first.commit(task.id, [chunk(task, 4, 'a'), chunk(task, 5, 'b')]);
    first.close();

    const second = new SqliteTaskStore({ file });
    try {
      expect(second.get(task.id)).toEqual({ task: working, lastSeq: 5 });
      const replay = second.create(makeTask(), [], key);
      expect(replay).toMatchObject({ created: false, stored: { lastSeq: 5 } });
      // An event that does not follow the recovered seq is refused; the one that does is kept.
      expect(() => second.commit(task.id, [chunk(task, 5, 'again')])).toThrow(/does not follow seq 5/);
      const { task: done, event: toDone } = moved(working, 'completed', 6);
      second.commit(task.id, [toDone], done);
      expect(second.get(task.id)).toEqual({ task: done, lastSeq: 6 });
      // A snapshot made with no event of its own keeps the seq it had (the row and the events agree).
      const fresh = makeTask();
      second.create(fresh, firstEvents(fresh));
      expect(second.get(fresh.id)?.lastSeq).toBe(2);
    } finally {
      second.close();
    }
  });

  it("takes a task's next seq from its own last commit, not from a row read", () => {
    const store = new SqliteTaskStore({ file });
    try {
      const task = makeTask();
      store.create(task, firstEvents(task));
      store.flush();
      // Another connection moves the row's last_seq ahead. The store is the file's only writer, so it
      // keeps to what it committed itself: a row read would make seq 3 refused as not following 50.
      const other = new Database(file);
      other.prepare('UPDATE tasks SET last_seq = 50 WHERE id = ?').run(task.id);
      other.close();
      const { task: working, event } = moved(task, 'working', 3);
      expect(() => store.commit(task.id, [event], working)).not.toThrow();
      store.flush();
    } finally {
      store.close();
    }
  });

  it('forgets the seqs of a lost group: the next change follows what was committed', () => {
    const store = new SqliteTaskStore({ file });
    try {
      const task = makeTask();
      store.create(task, firstEvents(task));
      store.flush();
      // A group that cannot commit (as a full disk would refuse it), from a trigger on another connection.
      const other = new Database(file);
      other.exec(`CREATE TRIGGER refuse_seq_4 BEFORE INSERT ON events WHEN new.seq = 4
                  BEGIN SELECT RAISE(ABORT, 'refused for the test'); END;`);
      const { task: working, event } = moved(task, 'working', 3);
      store.commit(task.id, [event], working);
      store.commit(task.id, [chunk(task, 4, 'lost')]);
      expect(() => store.flush()).toThrow(/refused for the test/);
      other.exec('DROP TRIGGER refuse_seq_4');
      other.close();
      expect(store.get(task.id)?.lastSeq).toBe(2);
      // Seq 3 again, as the committed state says; a cache that kept the lost seq 4 would refuse it.
      store.commit(task.id, [event], working);
      store.flush();
      expect(store.get(task.id)).toEqual({ task: working, lastSeq: 3 });
    } finally {
      store.close();
    }
  });

  it('keeps the last seq of every durable chunk when the writing process is killed with SIGKILL', async () => {
    const id = 'streamed-task';
    // Seqs 4, 5, ...: the 297th line is seq 300.
    const { lines, signal, stderr } = await runUntilKilled('./crash-streamer.ts', [file, id], 297);
    expect(signal, `writer exited on its own: ${stderr}`).toBe('SIGKILL');
    const reported = Number(lines.at(-1));

    const store = new SqliteTaskStore({ file });
    try {
      const { lastSeq, task } = store.get(id)!;
      // Every printed chunk is there; one more may have committed between its flush and the kill.
      expect(lastSeq).toBeGreaterThanOrEqual(reported);
      expect(lastSeq).toBeLessThanOrEqual(reported + 1);
      expect(task.status.state).toBe('working');
      const seqs = store.eventsAfter(id, 0).map((e) => e.seq);
      expect(seqs).toEqual(Array.from({ length: lastSeq - 1 }, (_, i) => i + 2));
      store.commit(id, [chunk(task, lastSeq + 1, 'after the crash')]);
      expect(store.get(id)?.lastSeq).toBe(lastSeq + 1);
    } finally {
      store.close();
    }
  });
});
