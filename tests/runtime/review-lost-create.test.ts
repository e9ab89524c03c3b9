/**
 * A group commit that is lost (the SQL fails, as on a full disk) must fail every task it held, even one
 * whose only write in that group was its creation: a task queued behind another turn of its conversation
 * has made no state change of its own yet, so nothing but its creation tells it that it was lost. And a
 * task lost while its agent works stops that agent: nobody may work on for a task its caller was told failed.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import type { Task } from '../../main/domain/task.js';
import type { TaskStore } from '../../main/ports.js';
import { Dispatcher } from '../../main/runtime/dispatcher.js';
import { EventFeed } from '../../main/runtime/event-feed.js';
import { AgentRegistry } from '../../main/runtime/registry.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { FakeBackend, GatedBackend } from '../fixtures/fake-backends.js';
import { agentSettings } from './core.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const send = (dispatcher: Dispatcher, text: string, blocking: boolean): Promise<Task> =>
  dispatcher.send({
    agent: 'gated',
    message: {
      kind: 'message',
      messageId: crypto.randomUUID(),
      role: 'user',
      contextId: 'one-conversation',
      parts: [{ kind: 'text', text }],
    },
    idempotent: false,
    blocking,
    delegation: {},
  });

/** A dispatcher as wiring builds one, with `backend` as the agent "gated". */
function dispatcherFor(store: TaskStore, backend: FakeBackend): Dispatcher {
  const registry = new AgentRegistry();
  registry.add('gated', backend, agentSettings({ appendDecisionContract: false }));
  const dispatcher = new Dispatcher({ store, registry, feed: new EventFeed(), maxDelegationDepth: 3 });
  cleanups.push(() => dispatcher.shutdown());
  return dispatcher;
}

function sabotagedStore(): { store: SqliteTaskStore; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'contactor-review-lost-'));
  const file = join(dir, 'tasks.db');
  const store = new SqliteTaskStore({ file });
  // A real failing commit: the group's SQL aborts when it inserts the marked task (like SQLITE_FULL would).
  const saboteur = new Database(file);
  saboteur.exec(`CREATE TRIGGER lose_marked BEFORE INSERT ON tasks WHEN NEW.task_json LIKE '%lose-me%'
                 BEGIN SELECT RAISE(ABORT, 'disk full'); END;
                 CREATE TRIGGER lose_marked_output BEFORE INSERT ON events WHEN NEW.event_json LIKE '%lose-this%'
                 BEGIN SELECT RAISE(ABORT, 'disk full'); END;
                 -- A row here makes every task write fail, as a disk that stays full would.
                 CREATE TABLE disk_full (since TEXT);
                 CREATE TRIGGER full_on_update BEFORE UPDATE ON tasks WHEN EXISTS (SELECT 1 FROM disk_full)
                 BEGIN SELECT RAISE(ABORT, 'disk full'); END;
                 CREATE TRIGGER full_on_event BEFORE INSERT ON events WHEN EXISTS (SELECT 1 FROM disk_full)
                 BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
  saboteur.close();
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  return { store, file };
}

it('a running turn whose task was lost is stopped: no agent works on for a task its caller was told failed', async () => {
  const { store } = sabotagedStore();
  let stopped!: () => void;
  const agentStopped = new Promise<string>((resolve) => (stopped = () => resolve('stopped')));
  // Its first output is a write the store cannot keep; then it works on until told to stop.
  const backend = new FakeBackend(
    (turn, report) =>
      new Promise((resolve) => {
        turn.signal.addEventListener('abort', () => {
          stopped();
          resolve({ kind: 'failed', reason: 'stopped by signal', retryable: true });
        });
        report.text('lose-this');
      }),
  );
  const dispatcher = dispatcherFor(store, backend);

  await expect(send(dispatcher, 'go', true)).rejects.toThrow(/could not be stored: disk full/);
  const hung = new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('agent still running'), 10_000);
    cleanups.push(() => clearTimeout(timer));
  });
  expect(await Promise.race([agentStopped, hung])).toBe('stopped');
  expect(backend.turns).toHaveLength(1);
});

it('a task whose creation was lost never reaches its agent', async () => {
  const { store } = sabotagedStore();
  const backend = new GatedBackend();
  const dispatcher = dispatcherFor(store, backend);

  await expect(send(dispatcher, 'lose-me', false)).rejects.toThrow(/disk full/);
  const next = await send(dispatcher, 'next', false);
  await backend.started(1);
  expect(backend.turns.map((t) => t.taskId)).toEqual([next.id]);
});

it('a blocking send whose creation was lost fails instead of waiting forever, and leaves no phantom task', async () => {
  const { store } = sabotagedStore();
  const backend = new GatedBackend();
  const dispatcher = dispatcherFor(store, backend);

  const first = await send(dispatcher, 'first', false);
  await backend.started(1);
  // Its "working" commits in a group of its own.
  await new Promise((resolve) => setImmediate(resolve));
  // Queued behind `first` in the same conversation: its creation is its only write in this group.
  const lost = send(dispatcher, 'lose-me', true);
  const outcome = lost.then(
    () => 'resolved',
    (err: Error) => err.message,
  );
  // Let the group holding only that creation commit (and fail) before `first` moves on.
  await new Promise((resolve) => setImmediate(resolve));
  backend.finish(0);
  const hung = new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('still waiting'), 10_000);
    cleanups.push(() => clearTimeout(timer));
  });
  expect(await Promise.race([outcome, hung])).toMatch(/could not be stored: disk full/);
  expect(dispatcher.get(first.id).status.state).toBe('completed');
  // Nothing left behind that still claims to be queued for the agent.
  expect(dispatcher.list({ pageSize: 10, includeArtifacts: false }).tasks.map((t) => t.id)).toEqual([first.id]);
  expect(backend.turns).toHaveLength(1);
});

it('a task whose progress was lost with another task’s group ends failed (retryable), not "working" for good', async () => {
  const { store, file } = sabotagedStore();
  const backend = new GatedBackend();
  const dispatcher = dispatcherFor(store, backend);

  const first = await send(dispatcher, 'first', false);
  await backend.started(1);
  await new Promise((resolve) => setImmediate(resolve));
  // One group: `first`'s reply and completion, and a creation that cannot be stored.
  backend.finish(0, 'the reply that is lost');
  await expect(send(dispatcher, 'lose-me', false)).rejects.toThrow(/disk full/);
  await new Promise((resolve) => setImmediate(resolve));

  const after = dispatcher.get(first.id);
  expect(after.status.state).toBe('failed');
  expect(after.metadata.retryable).toBe(true);
  expect(JSON.stringify(after.status.message)).toMatch(/could not store this task's progress \(disk full\)/);
  expect(after.artifacts).toEqual([]);
  // As stored, not only as shown: a second connection reads the committed row.
  const reader = new Database(file, { readonly: true });
  cleanups.push(() => reader.close());
  const row = reader.prepare('SELECT state FROM tasks WHERE id = ?').get(first.id) as { state: string };
  expect(row.state).toBe('failed');
});

it('while the disk stays full, that failure is tried once, then left to the next start: no retry loop', async () => {
  const { store, file } = sabotagedStore();
  const backend = new GatedBackend();
  const dispatcher = dispatcherFor(store, backend);
  const first = await send(dispatcher, 'first', false);
  await backend.started(1);
  await aFewTurnsOfTheLoop();

  const setDiskFull = (full: boolean) => {
    const admin = new Database(file);
    admin.exec(full ? "INSERT INTO disk_full VALUES ('now')" : 'DELETE FROM disk_full');
    admin.close();
  };
  setDiskFull(true);
  const writes = vi.spyOn(store, 'commit');
  backend.finish(0);
  await aFewTurnsOfTheLoop();
  const tried = writes.mock.calls.length;
  expect(tried).toBeGreaterThan(0);
  await aFewTurnsOfTheLoop();
  expect(writes.mock.calls.length).toBe(tried);
  expect(dispatcher.get(first.id).status.state).toBe('working');

  // The next start settles it.
  dispatcher.shutdown();
  store.close();
  setDiskFull(false);
  const reopened = new SqliteTaskStore({ file });
  cleanups.push(() => reopened.close());
  const restarted = dispatcherFor(reopened, backend);
  restarted.recover();
  const settled = restarted.get(first.id);
  expect(settled.status.state).toBe('failed');
  expect(settled.metadata.retryable).toBe(true);
});

async function aFewTurnsOfTheLoop(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}
