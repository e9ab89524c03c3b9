/**
 * The WAL is checkpointed by a worker thread's connection, not on the event loop: the database file
 * grows as the worker copies committed pages into it, the data stays whole, and a clean close still
 * removes the WAL (the worker's connection closes first).
 */
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { WalCheckpointer } from '../../main/stores/wal-checkpointer.js';
import { makeTask, textArtifact } from './make-task.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'contactor-wal-'));
  file = join(dir, 'tasks.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Commits `count` tasks one group each, yielding to the event loop between them as a bridge does. */
async function writeTasks(store: SqliteTaskStore, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const task = makeTask({ artifacts: [textArtifact(`task ${i} ${'x'.repeat(2_000)}`)] });
    store.create(task, []);
    store.flush();
    ids.push(task.id);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return ids;
}

it('copies committed pages into the database file from a worker thread, and the data stays whole', async () => {
  const store = new SqliteTaskStore({ file, checkpoints: { commitsPerCheckpoint: 20, idleMs: 60_000 } });
  const before = statSync(file).size;
  const ids = await writeTasks(store, 200);
  await expect
    .poll(() => statSync(file).size, { timeout: TEST_TIMEOUT_MS, interval: 20 })
    .toBeGreaterThan(before + 300_000);
  for (const id of ids) expect(store.get(id)?.task.id).toBe(id);
  store.close();
  expect(existsSync(`${file}-wal`)).toBe(false);

  const reader = new Database(file, { readonly: true });
  expect(reader.prepare('SELECT count(*) AS n FROM tasks').get()).toEqual({ n: 200 });
  reader.close();
});

it('without a checkpoint request the pages stay in the WAL (what the worker takes off the event loop)', async () => {
  const store = new SqliteTaskStore({ file, checkpoints: { commitsPerCheckpoint: 1_000_000 } });
  const before = statSync(file).size;
  await writeTasks(store, 200);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(statSync(file).size).toBe(before);
  expect(statSync(`${file}-wal`).size).toBeGreaterThan(200_000);
  store.close();
  expect(existsSync(`${file}-wal`)).toBe(false);
});

it('the worker starts only after enough commits, exits after a quiet spell, and comes back under load', async () => {
  const writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.exec('CREATE TABLE t (v TEXT)');
  const checkpointer = new WalCheckpointer(file, { commitsPerCheckpoint: 10, idleMs: 100 });
  const insert = writer.prepare('INSERT INTO t (v) VALUES (?)');
  const commit = (n: number) => {
    for (let i = 0; i < n; i += 1) {
      insert.run('x'.repeat(4_000));
      checkpointer.committed();
    }
  };
  try {
    commit(9);
    expect(checkpointer.running).toBe(false); // a quiet bridge has no extra thread
    commit(1);
    expect(checkpointer.running).toBe(true);
    await expect.poll(() => checkpointer.done, { timeout: TEST_TIMEOUT_MS, interval: 10 }).toBe(1);
    await expect.poll(() => checkpointer.running, { timeout: TEST_TIMEOUT_MS, interval: 10 }).toBe(false);
    commit(10);
    expect(checkpointer.running).toBe(true);
    await expect.poll(() => checkpointer.done, { timeout: TEST_TIMEOUT_MS, interval: 10 }).toBe(2);
  } finally {
    checkpointer.close();
    writer.close();
  }
  expect(existsSync(`${file}-wal`)).toBe(false);
});
