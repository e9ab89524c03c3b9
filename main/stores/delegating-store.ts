/**
 * A TaskStore that hands every call to another one: the base for a store that adds one behaviour on top
 * (the audit witness; fault injection in tests) and forwards the rest, group commit included.
 */
import type { StreamEvent, TaskEvent } from '../domain/events.js';
import type { Task, TaskState } from '../domain/task.js';
import type { IdempotencyKey, StoredTask, TaskPage, TaskQuery, TaskStore } from '../ports.js';

export class DelegatingTaskStore implements TaskStore {
  constructor(readonly inner: TaskStore) {}

  create(
    task: Task,
    events: StreamEvent[],
    key?: IdempotencyKey,
  ): { stored: StoredTask; created: boolean; payloadHash?: string } {
    return this.inner.create(task, events, key);
  }

  commit(taskId: string, events: TaskEvent[], task?: Task): string | undefined {
    return this.inner.commit(taskId, events, task);
  }

  get(taskId: string): StoredTask | undefined {
    return this.inner.get(taskId);
  }

  list(query: TaskQuery): TaskPage {
    return this.inner.list(query);
  }

  eventsAfter(taskId: string, afterSeq: number): TaskEvent[] {
    return this.inner.eventsAfter(taskId, afterSeq);
  }

  tasksInStates(states: TaskState[]): Task[] {
    return this.inner.tasksInStates(states);
  }

  afterCommit(callback: (lost?: Error) => void): void {
    this.inner.afterCommit(callback);
  }

  flush(): void {
    this.inner.flush();
  }

  close(): void {
    this.inner.close();
  }
}
