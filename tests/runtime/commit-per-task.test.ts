/**
 * The changes of several live tasks in one commit group: when the group commits, its events are told in
 * the order they were written, each once, and only then; when it is lost, every task it held fails once
 * and nobody hears of its changes; an event written while a group is told waits for its own commit.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent, TaskEvent } from '../../main/domain/events.js';
import type { Task } from '../../main/domain/task.js';
import { LiveTask } from '../../main/runtime/live-task.js';
import { DelegatingTaskStore } from '../../main/stores/delegating-store.js';
import { InMemoryTaskStore } from '../../main/stores/memory.js';

/** An in-memory store whose group commits only on `end` (its callbacks run then), committed or lost. */
class HeldGroupStore extends DelegatingTaskStore {
  held: ((lost?: Error) => void)[] = [];
  constructor() {
    super(new InMemoryTaskStore());
  }
  override afterCommit(callback: (lost?: Error) => void): void {
    this.held.push(callback);
  }
  end(lost?: Error): void {
    const held = this.held;
    this.held = [];
    for (const callback of held) callback(lost);
  }
}

function storedTask(store: HeldGroupStore, id: string): Task {
  const now = new Date().toISOString();
  const task: Task = {
    kind: 'task',
    id,
    contextId: `context-of-${id}`,
    status: { state: 'submitted', timestamp: now },
    history: [],
    artifacts: [],
    metadata: { agent: 'talker', createdAt: now, requiresReview: true, delegationDepth: 0, visitedAgents: [] },
  };
  store.create(task, []);
  return task;
}

/** Each heard event as "<task> <seq> <state or artifact>". */
const described = (event: StreamEvent | TaskEvent): string =>
  event.kind === 'task'
    ? 'snapshot'
    : `${event.taskId} ${event.seq} ${event.kind === 'status-update' ? event.status.state : 'artifact'}`;

function twoTasks() {
  const store = new HeldGroupStore();
  const heard: string[] = [];
  const published: string[] = [];
  const lost: string[] = [];
  const sink = { publish: (event: TaskEvent) => published.push(described(event)) };
  const live = ['a', 'b'].map((id) => {
    const task = new LiveTask({ task: storedTask(store, id), lastSeq: 0 }, store, [sink], () => lost.push(id));
    task.listen((event) => heard.push(described(event)));
    return task;
  });
  return { store, heard, published, lost, a: live[0]!, b: live[1]! };
}

describe('several tasks in one commit group', () => {
  it('the events of several tasks in one group are told in order, each once, after the commit', async () => {
    const { store, heard, published, a, b } = twoTasks();
    a.setStatus('working');
    b.setStatus('working');
    a.appendArtifact({ parts: [{ kind: 'text', text: 'hi' }], append: false, lastChunk: true }, 'a-reply');
    b.setStatus('completed');
    a.setStatus('completed');
    const settled = Promise.all([a.settled(), b.settled()]);

    expect(heard).toEqual([]);
    expect(a.unstored && b.unstored).toBe(true);

    store.end();
    await settled;
    // In the order they were written, each once.
    const expected = ['a 1 working', 'b 1 working', 'a 2 artifact', 'b 2 completed', 'a 3 completed'];
    expect(heard).toEqual(expected);
    expect(published).toEqual(expected);
    expect(a.unstored || b.unstored).toBe(false);
  });

  it('an event written while the group is told waits for the next group', () => {
    const { store, heard, a } = twoTasks();
    let reacted = false;
    a.listen(() => {
      if (reacted) return;
      reacted = true;
      a.announce({ event: 'progress', progress: { kind: 'note', text: 'written while told' } });
    });
    a.setStatus('working');
    store.end();
    expect(heard).toEqual(['a 1 working']);
    expect(a.unstored).toBe(true);

    store.end();
    expect(heard).toEqual(['a 1 working', 'a 2 working']);
    expect(a.unstored).toBe(false);
  });

  it('a lost group fails each task it held once, and nobody hears of its changes', async () => {
    const { store, heard, published, lost, a, b } = twoTasks();
    a.setStatus('working');
    b.setStatus('working');
    a.setStatus('completed');
    b.saveSnapshot();
    const waits = [a.settled(), b.settled()].map((p) =>
      p.then(
        () => 'settled',
        (err: Error) => err.message,
      ),
    );

    store.end(new Error('disk full'));
    expect(lost).toEqual(['a', 'b']);
    expect(heard).toEqual([]);
    expect(published).toEqual([]);
    expect(await Promise.all(waits)).toEqual([
      expect.stringMatching(/^task a could not be stored: disk full\./),
      expect.stringMatching(/^task b could not be stored: disk full\./),
    ]);
    // Frozen: a later change is refused and asks for no commit.
    expect(a.setStatus('failed')).toBe(false);
    expect(store.held).toHaveLength(0);
  });
});
