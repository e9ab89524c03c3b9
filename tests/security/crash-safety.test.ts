/**
 * Crash safety: every state change is stored in one transaction before anyone hears of it; a bridge
 * refuses (never resets) an unreadable database, naming the file and the recovery command; a second
 * bridge on the same data dir is refused while the first keeps serving.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskEvent } from '../../main/domain/events.js';
import type { Task } from '../../main/domain/task.js';
import { Dispatcher } from '../../main/runtime/dispatcher.js';
import { EventFeed } from '../../main/runtime/event-feed.js';
import { AgentRegistry } from '../../main/runtime/registry.js';
import { DelegatingTaskStore } from '../../main/stores/delegating-store.js';
import { InMemoryTaskStore } from '../../main/stores/memory.js';
import { createBridge } from '../../main/wiring/wiring.js';
import { AskingBackend, outcome, permissionRequest, scripted } from '../fixtures/fake-backends.js';
import { agentSettings } from '../runtime/core.js';
import { ECHO_AGENT, tempDir, writeTestConfig } from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';
import { rpc, startBridgeProcess, stopBridgeProcess } from './kill-harness.js';

/** A real store that keeps a log of every call that reached it, and can be told to fail the next commit. */
class WitnessStore extends DelegatingTaskStore {
  readonly log: { kind: 'commit'; events: TaskEvent[]; snapshot?: Task }[] = [];
  failNextCommit = false;
  constructor() {
    super(new InMemoryTaskStore());
  }
  override commit(taskId: string, events: TaskEvent[], task?: Task): string | undefined {
    if (this.failNextCommit) {
      this.failNextCommit = false;
      throw new Error('disk full');
    }
    const json = super.commit(taskId, events, task);
    this.log.push({
      kind: 'commit',
      events: structuredClone(events),
      ...(task ? { snapshot: structuredClone(task) } : {}),
    });
    return json;
  }
}

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

describe('one transaction per state change', () => {
  it('stores each status change with its snapshot in one commit, before any sink hears of it', async () => {
    const store = new WitnessStore();
    const registry = new AgentRegistry();
    const heard: { event: TaskEvent; committedBefore: number }[] = [];
    const sink = { publish: (event: TaskEvent) => heard.push({ event, committedBefore: store.log.length }) };
    const dispatcher = new Dispatcher({ store, registry, feed: new EventFeed(), sinks: [sink], maxDelegationDepth: 3 });
    registry.add('ok', scripted(['all good']), agentSettings({ appendDecisionContract: false }));
    registry.add(
      'bad',
      outcome({ kind: 'failed', reason: 'exit 2', retryable: false }),
      agentSettings({ appendDecisionContract: false }),
    );
    registry.add('asks', new AskingBackend([permissionRequest('rm -rf build')]), agentSettings());
    const send = (agent: string, blocking = true) =>
      dispatcher.send({
        agent,
        message: {
          kind: 'message',
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'go' }],
        },
        idempotent: false,
        blocking,
        delegation: {},
      });

    await send('ok');
    await send('bad');
    const asking = await send('asks');
    expect(asking.status.state).toBe('input-required');
    dispatcher.answer(asking.id, 'yes', { kind: 'person', via: 'tester' });
    await new Promise<void>((resolve) => {
      const poll = () => (dispatcher.get(asking.id).status.state === 'completed' ? resolve() : setTimeout(poll, 5));
      poll();
    });
    dispatcher.shutdown();

    const statusCommits = store.log.filter((c) => c.events.some((e) => e.kind === 'status-update' && c.snapshot));
    expect(statusCommits.length).toBeGreaterThanOrEqual(7);
    for (const commit of store.log) {
      expect(commit.events).toHaveLength(1);
      const [event] = commit.events;
      if (event!.kind === 'status-update' && commit.snapshot) {
        // The snapshot and the event describe the same state: readers can never see one without the other.
        expect(commit.snapshot.status).toEqual(event!.status);
      }
    }
    for (const { event, committedBefore } of heard) {
      const index = store.log.findIndex((c) => c.events[0]!.taskId === event.taskId && c.events[0]!.seq === event.seq);
      expect(index).toBeGreaterThanOrEqual(0);
      expect(index).toBeLessThan(committedBefore);
    }
  });

  it('tells no one about a change the store refused', async () => {
    const store = new WitnessStore();
    const registry = new AgentRegistry();
    const heard: TaskEvent[] = [];
    const dispatcher = new Dispatcher({
      store,
      registry,
      feed: new EventFeed(),
      sinks: [{ publish: (e) => heard.push(e) }],
      maxDelegationDepth: 3,
    });
    registry.add('ok', scripted(['fine']), agentSettings({ appendDecisionContract: false }));
    store.failNextCommit = true;
    const sent = await dispatcher.send({
      agent: 'ok',
      message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }] },
      idempotent: false,
      blocking: false,
      delegation: {},
    });
    await new Promise((r) => setTimeout(r, 50));
    dispatcher.shutdown();
    // The refused change (submitted → working) was never announced; the stored task still says submitted.
    expect(
      heard.every((e) => store.log.some((c) => c.events[0]!.seq === e.seq && c.events[0]!.taskId === e.taskId)),
    ).toBe(true);
    expect(store.get(sent.id)!.task.status.state).not.toBe('working');
  });
});

describe('an unreadable database', () => {
  it('is refused at startup with its path and the recovery command, left untouched, and the lock released', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const { configPath, dataDir } = writeTestConfig(dir, { agents: { echo: nodeFixture(ECHO_AGENT) } });
    mkdirSync(dataDir, { recursive: true });
    const db = path.join(dataDir, 'contactor.db');
    const garbage = 'SQLite format 3\0'.padEnd(8192, 'garbage! ');
    writeFileSync(db, garbage);
    const env = { PATH: process.env.PATH, HOME: dir };
    const attempt = createBridge({ configPath, env });
    await expect(attempt).rejects.toThrow(db);
    await expect(createBridge({ configPath, env })).rejects.toThrow(`mv "${db}" "${db}.broken"`);
    expect(readFileSync(db, 'utf8')).toBe(garbage);

    // Doing what the message says brings the bridge up on an empty database.
    renameSync(db, `${db}.broken`);
    const bridge = await createBridge({ configPath, env });
    await bridge.start();
    try {
      expect((await fetch(`${bridge.url}/health`)).status).toBe(200);
    } finally {
      await bridge.stop();
    }
  });
});

describe.skipIf(process.platform === 'win32')('a second bridge on the same data dir', () => {
  it('is refused, and the first keeps serving with its data intact', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const { configPath, dataDir } = writeTestConfig(dir, { agents: { echo: nodeFixture(ECHO_AGENT) } });
    const first = await startBridgeProcess(configPath, dataDir, dir);
    try {
      const sent = await rpc(first, 'message/send', { agent: 'echo', text: 'before' });
      expect(sent.result.status.state).toBe('completed');
      await expect(createBridge({ configPath, env: { PATH: process.env.PATH, HOME: dir } })).rejects.toThrow(
        new RegExp(`another contactor bridge \\(pid ${first.child.pid}\\) is already using`),
      );
      expect((await rpc(first, 'tasks/get', { id: sent.result.id })).result.status.state).toBe('completed');
      expect((await rpc(first, 'message/send', { agent: 'echo', text: 'after' })).result.status.state).toBe(
        'completed',
      );
    } finally {
      await stopBridgeProcess(first);
    }
  });
});
