/**
 * Group commit seen from the runtime: nobody hears of a change (subscriber, sink, blocking send) before
 * the store says it is durable, and a change the store loses fails its waiters instead of hanging them.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamEvent, TaskEvent } from '../../main/domain/events.js';
import type { TaskStore } from '../../main/ports.js';
import { Dispatcher } from '../../main/runtime/dispatcher.js';
import { EventFeed } from '../../main/runtime/event-feed.js';
import { AgentRegistry } from '../../main/runtime/registry.js';
import { DelegatingTaskStore } from '../../main/stores/delegating-store.js';
import { InMemoryTaskStore } from '../../main/stores/memory.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { scripted, streaming } from '../fixtures/fake-backends.js';
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
