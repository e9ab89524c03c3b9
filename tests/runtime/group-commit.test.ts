/**
 * Group commit seen from the runtime: nobody hears of a change (subscriber, sink, blocking send) before
 * the store says it is durable, and a change the store loses fails its waiters instead of hanging them
 * (with a store that loses groups on demand, and with SQLite failing a real commit).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StreamEvent, TaskEvent } from '../../main/domain/events.js';
import type { Task } from '../../main/domain/task.js';
import type { TaskStore } from '../../main/ports.js';
import { Dispatcher } from '../../main/runtime/dispatcher.js';
import { RETRY_LOSS_MS } from '../../main/runtime/live-tasks.js';
import { EventFeed } from '../../main/runtime/event-feed.js';
import { AgentRegistry } from '../../main/runtime/registry.js';
import { DelegatingTaskStore } from '../../main/stores/delegating-store.js';
import { InMemoryTaskStore } from '../../main/stores/memory.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { FakeBackend, GatedBackend, scripted, streaming } from '../fixtures/fake-backends.js';
import { agentSettings } from './core.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function dispatcherOn(store: TaskStore, heard: (event: TaskEvent) => void): Dispatcher {
  const registry = new AgentRegistry();
  registry.add(
    'talker',
    streaming(['one ', 'two ', 'three'], { yieldBetween: true }),
    agentSettings({ appendDecisionContract: false }),
  );
  const dispatcher = new Dispatcher({
    store,
    registry,
    feed: new EventFeed(),
    sinks: [{ publish: heard }],
    maxDelegationDepth: 3,
  });
  cleanups.push(() => dispatcher.shutdown());
  return dispatcher;
}

const message = (text: string) => ({
  kind: 'message' as const,
  messageId: crypto.randomUUID(),
  role: 'user' as const,
  parts: [{ kind: 'text' as const, text }],
});

describe('with the SQLite store', () => {
  it('every event a sink or subscriber hears, and the answer of a blocking send, is already on disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'contactor-group-'));
    const file = join(dir, 'tasks.db');
    const store = new SqliteTaskStore({ file });
    // A second connection sees what a crash would leave: only committed transactions.
    const reader = new Database(file, { readonly: true });
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => store.close(),
      () => reader.close(),
    );
    const onDisk = (event: StreamEvent) =>
      reader
        .prepare('SELECT 1 FROM events WHERE task_id = ? AND seq = ?')
        .get((event as TaskEvent).taskId, event.seq) !== undefined;

    const notOnDisk: StreamEvent[] = [];
    const dispatcher = dispatcherOn(store, (event) => onDisk(event) || notOnDisk.push(event));
    const started = await dispatcher.send({
      agent: 'talker',
      message: message('go'),
      idempotent: false,
      blocking: false,
      delegation: {},
    });
    const streamed: StreamEvent[] = [];
    dispatcher.subscribe(started.id, 0, (event) => {
      streamed.push(event);
      if (!onDisk(event)) notOnDisk.push(event);
    });
    const done = await dispatcher.send({
      agent: 'talker',
      message: message('again'),
      idempotent: false,
      blocking: true,
      delegation: {},
    });

    expect(done.status.state).toBe('completed');
    const row = reader.prepare('SELECT state FROM tasks WHERE id = ?').get(done.id) as { state: string } | undefined;
    expect(row?.state).toBe('completed');
    expect(streamed.map((e) => (e.kind === 'status-update' ? e.status.state : e.kind))).toEqual(
      expect.arrayContaining(['working', 'artifact-update', 'completed']),
    );
    expect(notOnDisk).toEqual([]);
  });
});

/**
 * A real in-memory store whose group commits can be held back (a crash may fall before the commit) or
 * made to fail, as a full disk would.
 */
class LosingStore extends DelegatingTaskStore {
  lose = false;
  /** While true, a group commits only on `end()` (or a flush). */
  hold = false;
  private held: ((lost?: Error) => void)[] = [];
  constructor() {
    super(new InMemoryTaskStore());
  }
  override afterCommit(callback: (lost?: Error) => void): void {
    this.held.push(callback);
    if (this.held.length === 1 && !this.hold) setImmediate(() => this.end());
  }
  override flush(): void {
    const lost = this.end();
    if (lost) throw lost;
  }
  end(): Error | undefined {
    const held = this.held;
    this.held = [];
    const lost = this.lose ? new Error('disk full') : undefined;
    for (const callback of held) callback(lost);
    return lost;
  }
}

const aFewTurnsOfTheLoop = async () => {
  for (let i = 0; i < 5; i += 1) await new Promise((r) => setImmediate(r));
};

describe('the agent starts only on a durable task', () => {
  it('no turn starts before the task is committed: a crash in between leaves no work done for a task nobody stored', async () => {
    const store = new LosingStore();
    store.hold = true;
    const registry = new AgentRegistry();
    const agent = scripted(['hi']);
    registry.add('talker', agent, agentSettings());
    const dispatcher = new Dispatcher({ store, registry, feed: new EventFeed(), maxDelegationDepth: 3 });
    cleanups.push(() => dispatcher.shutdown());

    const sending = dispatcher.send({
      agent: 'talker',
      message: message('go'),
      idempotent: true,
      blocking: false,
      delegation: {},
    });
    await aFewTurnsOfTheLoop();
    expect(agent.turns).toEqual([]);

    store.hold = false;
    store.end();
    const task = await sending;
    await agent.started(1);
    expect(agent.turns[0]!.taskId).toBe(task.id);
  });

  it('a task whose creation is lost never reaches its agent', async () => {
    const store = new LosingStore();
    const registry = new AgentRegistry();
    const agent = scripted(['hi']);
    registry.add('talker', agent, agentSettings());
    const dispatcher = new Dispatcher({ store, registry, feed: new EventFeed(), maxDelegationDepth: 3 });
    cleanups.push(() => dispatcher.shutdown());
    store.lose = true;

    await expect(
      dispatcher.send({ agent: 'talker', message: message('go'), idempotent: false, blocking: false, delegation: {} }),
    ).rejects.toThrow(/disk full/);
    await aFewTurnsOfTheLoop();
    expect(agent.turns).toEqual([]);
    // Its queue place was given back: the agent takes new work as before.
    store.lose = false;
    await dispatcher.send({
      agent: 'talker',
      message: message('next'),
      idempotent: false,
      blocking: true,
      delegation: {},
    });
    expect(agent.turns.map((t) => t.text)).toEqual([expect.stringContaining('next')]);
  });
});

describe('when the store loses a group', () => {
  it('a blocking send fails naming the task, and no one hears of the lost changes', async () => {
    const store = new LosingStore();
    const heard: TaskEvent[] = [];
    const dispatcher = dispatcherOn(store, (event) => heard.push(event));
    store.lose = true;
    await expect(
      dispatcher.send({ agent: 'talker', message: message('go'), idempotent: false, blocking: true, delegation: {} }),
    ).rejects.toThrow(/task .+ could not be stored: disk full/);
    expect(heard).toEqual([]);
  });

  it('a send that only waits for its creation fails the same way', async () => {
    const store = new LosingStore();
    const dispatcher = dispatcherOn(store, () => undefined);
    store.lose = true;
    await expect(
      dispatcher.send({ agent: 'talker', message: message('go'), idempotent: false, blocking: false, delegation: {} }),
    ).rejects.toThrow(/disk full/);
  });
});

/**
 * A group commit that SQLite itself loses (the SQL fails, as on a full disk) must fail every task it held, even
 * one whose only write in that group was its creation: a task queued behind another turn of its conversation
 * has made no state change of its own yet, so nothing but its creation tells it that it was lost. And a
 * task lost while its agent works stops that agent: nobody may work on for a task its caller was told failed.
 */
/** What a marked creation's lost COMMIT reports (see sabotagedStore). */
const LOST_AT_COMMIT = /FOREIGN KEY constraint failed/;

describe('when SQLite loses a group commit', () => {
  const sendInConversation = (dispatcher: Dispatcher, text: string, blocking: boolean): Promise<Task> =>
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
    const dir = mkdtempSync(join(tmpdir(), 'contactor-lost-group-'));
    const file = join(dir, 'tasks.db');
    const store = new SqliteTaskStore({ file });
    // A real failing commit. A marked task's creation is inserted in the group's open transaction
    // (stores/pending-writes.ts) and lost at its COMMIT, like a WAL the full disk cannot grow: the insert adds
    // a row whose deferred foreign key fails only there (SQLITE_CONSTRAINT_FOREIGNKEY, "FOREIGN KEY ...").
    // Marked output aborts the group's SQL when it is written (like SQLITE_FULL would).
    const saboteur = new Database(file);
    saboteur.exec(`CREATE TABLE lost_parent (id TEXT PRIMARY KEY);
                   CREATE TABLE lost_at_commit (task_id TEXT REFERENCES lost_parent (id) DEFERRABLE INITIALLY DEFERRED);
                   CREATE TRIGGER lose_marked AFTER INSERT ON tasks WHEN NEW.task_json LIKE '%lose-me%'
                   BEGIN INSERT INTO lost_at_commit VALUES (NEW.id); END;
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

    await expect(sendInConversation(dispatcher, 'go', true)).rejects.toThrow(/could not be stored: disk full/);
    const hung = new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('agent still running'), 10_000);
      cleanups.push(() => clearTimeout(timer));
    });
    expect(await Promise.race([agentStopped, hung])).toBe('stopped');
    expect(backend.turns).toHaveLength(1);
  });

  it('a task whose creation SQLite could not store never reaches its agent; the next one does', async () => {
    const { store } = sabotagedStore();
    const backend = new GatedBackend();
    const dispatcher = dispatcherFor(store, backend);

    await expect(sendInConversation(dispatcher, 'lose-me', false)).rejects.toThrow(LOST_AT_COMMIT);
    const next = await sendInConversation(dispatcher, 'next', false);
    await backend.started(1);
    expect(backend.turns.map((t) => t.taskId)).toEqual([next.id]);
  });

  it('a blocking send whose creation was lost fails instead of waiting forever, and leaves no phantom task', async () => {
    const { store } = sabotagedStore();
    const backend = new GatedBackend();
    const dispatcher = dispatcherFor(store, backend);

    const first = await sendInConversation(dispatcher, 'first', false);
    await backend.started(1);
    // Its "working" commits in a group of its own.
    await new Promise((resolve) => setImmediate(resolve));
    // Queued behind `first` in the same conversation: its creation is its only write in this group.
    const lost = sendInConversation(dispatcher, 'lose-me', true);
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
    expect(await Promise.race([outcome, hung])).toMatch(/could not be stored: FOREIGN KEY constraint failed/);
    expect(dispatcher.get(first.id).status.state).toBe('completed');
    // Nothing left behind that still claims to be queued for the agent.
    expect(dispatcher.list({ pageSize: 10, includeArtifacts: false }).tasks.map((t) => t.id)).toEqual([first.id]);
    expect(backend.turns).toHaveLength(1);
  });

  it('a task whose progress was lost with another task’s group ends failed (retryable), not "working" for good', async () => {
    const { store, file } = sabotagedStore();
    const backend = new GatedBackend();
    const dispatcher = dispatcherFor(store, backend);

    const first = await sendInConversation(dispatcher, 'first', false);
    await backend.started(1);
    await new Promise((resolve) => setImmediate(resolve));
    // One group: `first`'s reply and completion, and a creation that cannot be stored.
    backend.finish(0, 'the reply that is lost');
    await expect(sendInConversation(dispatcher, 'lose-me', false)).rejects.toThrow(LOST_AT_COMMIT);
    await new Promise((resolve) => setImmediate(resolve));

    const after = dispatcher.get(first.id);
    expect(after.status.state).toBe('failed');
    expect(after.metadata.retryable).toBe(true);
    expect(JSON.stringify(after.status.message)).toMatch(
      /could not store this task's progress \(FOREIGN KEY constraint failed\)/,
    );
    expect(after.artifacts).toEqual([]);
    // As stored, not only as shown: a second connection reads the committed row.
    const reader = new Database(file, { readonly: true });
    cleanups.push(() => reader.close());
    const row = reader.prepare('SELECT state FROM tasks WHERE id = ?').get(first.id) as { state: string };
    expect(row.state).toBe('failed');
  });

  it('while the disk stays full, that failure is retried less and less often (no busy loop) and stored once space returns', async () => {
    const { store, file } = sabotagedStore();
    const backend = new GatedBackend();
    const dispatcher = dispatcherFor(store, backend);
    const first = await sendInConversation(dispatcher, 'first', false);
    await backend.started(1);
    await aFewTurnsOfTheLoop();

    const setDiskFull = (full: boolean) => {
      const admin = new Database(file);
      admin.exec(full ? "INSERT INTO disk_full VALUES ('now')" : 'DELETE FROM disk_full');
      admin.close();
    };
    setDiskFull(true);
    // Only the retry timer is faked: the group commits still run on the real event loop.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    cleanups.push(() => vi.useRealTimers());
    const writes = vi.spyOn(store, 'commit');
    backend.finish(0);
    await aFewTurnsOfTheLoop();
    const tried = writes.mock.calls.length;
    expect(tried).toBeGreaterThan(0);
    await aFewTurnsOfTheLoop();
    expect(writes.mock.calls.length).toBe(tried);
    expect(dispatcher.get(first.id).status.state).toBe('working');

    // Each retry while the disk is full tries once, then waits longer: 5 s, 10 s, 20 s …
    vi.advanceTimersByTime(RETRY_LOSS_MS);
    await aFewTurnsOfTheLoop();
    const afterFirstRetry = writes.mock.calls.length;
    expect(afterFirstRetry).toBeGreaterThan(tried);
    vi.advanceTimersByTime(RETRY_LOSS_MS);
    await aFewTurnsOfTheLoop();
    expect(writes.mock.calls.length).toBe(afterFirstRetry);

    // Space returns: the next retry stores the failure, without a restart.
    setDiskFull(false);
    vi.advanceTimersByTime(RETRY_LOSS_MS);
    await aFewTurnsOfTheLoop();
    const settled = dispatcher.get(first.id);
    expect(settled.status.state).toBe('failed');
    expect(settled.metadata.retryable).toBe(true);
    expect(JSON.stringify(settled.status.message)).toMatch(/could not store this task's progress/);
    const reader = new Database(file, { readonly: true });
    cleanups.push(() => reader.close());
    expect(reader.prepare('SELECT state FROM tasks WHERE id = ?').pluck().get(first.id)).toBe('failed');
  });

  it('a read while the disk is full answers with the last durable state; a write there is refused as not stored', async () => {
    const { store, file } = sabotagedStore();
    const backend = new GatedBackend();
    const dispatcher = dispatcherFor(store, backend);
    const first = await sendInConversation(dispatcher, 'first', false);
    await backend.started(1);
    await aFewTurnsOfTheLoop();
    const admin = new Database(file);
    cleanups.push(() => admin.close());
    admin.exec("INSERT INTO disk_full VALUES ('now')");

    // The read comes while the agent's reply is written but its group not yet committed: no timing,
    // it runs in the same turn as the write (before the group's setImmediate).
    const commit = store.commit.bind(store);
    let written!: () => void;
    const replyWritten = new Promise<void>((resolve) => (written = resolve));
    vi.spyOn(store, 'commit').mockImplementation((...args) => {
      commit(...args);
      written();
    });
    backend.finish(0);
    await replyWritten;
    // Showing the live task needs that group durable, and the full disk loses it: not an internal error.
    expect(dispatcher.get(first.id).status.state).toBe('working');
    expect(dispatcher.list({ pageSize: 10, includeArtifacts: false }).tasks[0]?.status.state).toBe('working');
    // A change a caller makes now cannot be kept either: refused as not stored (retryable), naming the task.
    await expect(dispatcher.cancel(first.id)).rejects.toMatchObject({
      reason: 'not-stored',
      data: { taskId: first.id, retryable: true },
    });
  });

  it('a failure still unstored at shutdown is left to the next start, which settles it', async () => {
    const { store, file } = sabotagedStore();
    const backend = new GatedBackend();
    const dispatcher = dispatcherFor(store, backend);
    const first = await sendInConversation(dispatcher, 'first', false);
    await backend.started(1);
    await aFewTurnsOfTheLoop();
    const admin = new Database(file);
    admin.exec("INSERT INTO disk_full VALUES ('now')");
    backend.finish(0);
    await aFewTurnsOfTheLoop();
    expect(dispatcher.get(first.id).status.state).toBe('working');

    dispatcher.shutdown();
    store.close();
    admin.exec('DELETE FROM disk_full');
    admin.close();
    const reopened = new SqliteTaskStore({ file });
    cleanups.push(() => reopened.close());
    const restarted = dispatcherFor(reopened, backend);
    restarted.recover();
    const settled = restarted.get(first.id);
    expect(settled.status.state).toBe('failed');
    expect(settled.metadata.retryable).toBe(true);
  });
});
