/**
 * The runtime's limits: the bridge-wide turn cap (turns beyond it wait, none dropped, a parked turn gives
 * its slot back) and the per-task artifact cap (text beyond it dropped, the cut recorded on the task).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isTerminal, textOf, type Task } from '../../main/domain/task.js';
import { ArtifactBudget, artifactBytes } from '../../main/runtime/artifact-budget.js';
import { Dispatcher } from '../../main/runtime/dispatcher.js';
import { EventFeed } from '../../main/runtime/event-feed.js';
import { AgentRegistry } from '../../main/runtime/registry.js';
import { TurnSlots } from '../../main/runtime/turn-slots.js';
import { InMemoryTaskStore } from '../../main/stores/memory.js';
import { AskingBackend, GatedBackend, permissionRequest, streaming } from '../fixtures/fake-backends.js';
import { agentSettings } from './core.js';

function harness(slots?: TurnSlots) {
  const store = new InMemoryTaskStore();
  const registry = new AgentRegistry(slots);
  const feed = new EventFeed();
  const dispatcher = new Dispatcher({ store, registry, feed, maxDelegationDepth: 3 });
  const send = (agent: string, text: string) =>
    dispatcher.send({
      agent,
      message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text }] },
      idempotent: false,
      blocking: false,
      delegation: {},
    });
  const until = (taskId: string, done: (t: Task) => boolean): Promise<Task> =>
    new Promise((resolve) => {
      const check = (): boolean => {
        const task = dispatcher.get(taskId);
        if (!done(task)) return false;
        resolve(task);
        return true;
      };
      if (check()) return;
      const stop = feed.listen(() => {
        if (check()) stop();
      });
    });
  return { store, registry, dispatcher, send, until };
}

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe('TurnSlots', () => {
  it('hands slots out first come first served and never more than the limit', async () => {
    const slots = new TurnSlots(2);
    const order: number[] = [];
    const releases = await Promise.all([slots.acquire(), slots.acquire()]);
    const waiting = [1, 2, 3].map((n) => slots.acquire().then((release) => (order.push(n), release)));
    expect(slots.running).toBe(2);
    expect(slots.waiting).toBe(3);
    releases[0]!();
    releases[0]!(); // a second call gives back nothing more
    const first = await waiting[0]!;
    expect(order).toEqual([1]);
    expect(slots.running).toBe(2);
    releases[1]!();
    first();
    await Promise.all(waiting.slice(1));
    expect(order).toEqual([1, 2, 3]);
    expect(slots.running).toBe(2);
  });

  it('resize: a raised cap starts waiting turns at once; a lowered one lets running turns finish first', async () => {
    const slots = new TurnSlots(1);
    const first = await slots.acquire();
    const started: number[] = [];
    const waiting = [1, 2, 3].map((n) => slots.acquire().then((release) => (started.push(n), release)));
    slots.resize(3);
    const [r1, r2] = await Promise.all([waiting[0]!, waiting[1]!]);
    expect(started).toEqual([1, 2]);
    expect(slots.running).toBe(3);
    slots.resize(1);
    first();
    r1();
    expect(slots.running).toBe(1); // the third still waits: one runs, the cap is one
    expect(slots.waiting).toBe(1);
    r2();
    (await waiting[2]!)();
    expect(started).toEqual([1, 2, 3]);
    expect(slots.running).toBe(0);
  });

  it('refuses a limit below 1', () => {
    expect(() => new TurnSlots(0)).toThrow(/at least 1/);
  });
});

describe('max_concurrent_tasks', () => {
  it('runs at most the cap across agents; the rest wait and all complete', async () => {
    const slots = new TurnSlots(2);
    const h = harness(slots);
    const agents = ['a', 'b', 'c'].map((name) => {
      const backend = new GatedBackend();
      h.registry.add(name, backend, agentSettings({ appendDecisionContract: false }));
      return backend;
    });
    cleanup = () => h.dispatcher.shutdown();
    const tasks = await Promise.all(['a', 'b', 'c'].flatMap((agent) => [h.send(agent, '1'), h.send(agent, '2')]));
    await agents[0]!.started(1);
    await agents[1]!.started(1);
    expect(agents[2]!.turns).toHaveLength(0);
    expect(slots.running).toBe(2);
    expect(tasks.map((t) => h.dispatcher.get(t.id).status.state).filter((s) => s === 'working')).toHaveLength(2);

    // Each finished turn lets exactly one waiting turn start, until all six are done.
    for (let done = 0; done < 6; done += 1) {
      const running = agents
        .flatMap((b, i) => b.turns.map((turn, n) => ({ i, n, turn })))
        .filter(({ turn }) => !isTerminal(h.dispatcher.get(turn.taskId).status.state));
      expect(running.length).toBeLessThanOrEqual(2);
      const next = running[0]!;
      agents[next.i]!.finish(next.n);
      await h.until(next.turn.taskId, (t) => t.status.state === 'completed');
    }
    for (const task of tasks) expect(h.dispatcher.get(task.id).status.state).toBe('completed');
    expect(slots.running).toBe(0);
  });

  it('gives the slot back while a task waits for a person', async () => {
    const slots = new TurnSlots(1);
    const h = harness(slots);
    h.registry.add('asker', new AskingBackend([permissionRequest('rm -rf build')]), agentSettings());
    const other = new GatedBackend();
    h.registry.add('other', other, agentSettings({ appendDecisionContract: false }));
    cleanup = () => h.dispatcher.shutdown();
    const asking = await h.send('asker', 'clean up');
    await h.until(asking.id, (t) => t.status.state === 'input-required');
    const waiting = await h.send('other', 'meanwhile');
    await other.started(1);
    other.finish(0);
    expect((await h.until(waiting.id, (t) => isTerminal(t.status.state))).status.state).toBe('completed');
    h.dispatcher.answer(asking.id, 'yes', { kind: 'person', via: 'tester' });
    expect((await h.until(asking.id, (t) => isTerminal(t.status.state))).status.state).toBe('completed');
    expect(slots.running).toBe(0);
  });
});

describe('max_artifact_bytes', () => {
  it('keeps whole characters up to the cap and counts the rest', () => {
    const budget = new ArtifactBudget(10, emptyTask());
    expect(budget.take('abcd')).toBe('abcd');
    expect(budget.take('éééé')).toBe('ééé'); // 2 bytes each: 6 bytes fit, the 4th would cross 10
    expect(budget.take('more')).toBe('');
    expect(budget.droppedBytes).toBe(2 + 4);
    expect(budget.truncation({ at: 10, droppedBytes: 5 })).toEqual({ at: 10, droppedBytes: 11 });
  });

  it('drops text beyond the cap and records metadata.truncated on the task', async () => {
    const h = harness();
    const chunk = '€'.repeat(1000); // 3000 bytes
    h.registry.add(
      'flood',
      streaming(Array.from({ length: 20 }, () => chunk)),
      agentSettings({ appendDecisionContract: false, maxArtifactBytes: 10_000 }),
    );
    cleanup = () => h.dispatcher.shutdown();
    const sent = await h.send('flood', 'go');
    const done = await h.until(sent.id, (t) => isTerminal(t.status.state));
    expect(done.status.state).toBe('completed');
    expect(done.metadata.truncated).toEqual({ at: 10_000, droppedBytes: 20 * 3000 - 9999 });
    expect(artifactBytes(done)).toBe(9999);
    expect(textOf(done.artifacts[0]!.parts)).toBe('€'.repeat(3333));
    // What the store holds is the capped task, not the flood.
    expect(artifactBytes(h.store.get(sent.id)!.task)).toBe(9999);
  });
});

function emptyTask(): Task {
  return {
    kind: 'task',
    id: 't',
    contextId: 'c',
    status: { state: 'working', timestamp: new Date().toISOString() },
    history: [],
    artifacts: [],
    metadata: {
      agent: 'a',
      requiresReview: true,
      createdAt: new Date().toISOString(),
      delegationDepth: 0,
      visitedAgents: [],
    },
  };
}
