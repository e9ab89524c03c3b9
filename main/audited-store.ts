/**
 * A TaskStore that tells the audit log about every task it creates. Creation is the one change that
 * produces no event (a task starts with none, and a loop-guard rejection is born terminal), so the
 * store is where it can be seen — once the insert is durable (see `afterCommit`), never for a replayed
 * messageId.
 */
import type { StreamEvent, TaskEvent } from './domain/events.js';
import type { Task, TaskState } from './domain/task.js';
import type { IdempotencyKey, StoredTask, TaskPage, TaskQuery, TaskStore } from './ports.js';

export interface CreationWitness {
  taskCreated(task: Task): void;
}

export class AuditedTaskStore implements TaskStore {
  constructor(
    private readonly inner: TaskStore,
    private readonly witness: CreationWitness,
  ) {}

  create(
    task: Task,
    events: StreamEvent[],
    key?: IdempotencyKey,
  ): { stored: StoredTask; created: boolean; payloadHash?: string } {
    const result = this.inner.create(task, events, key);
    if (!result.created) return result;
    // The caller may change the returned task before the group commits: the entry shows it as created.
    const created = { ...result.stored.task, status: result.stored.task.status };
    if (this.inner.afterCommit) {
      this.inner.afterCommit((lost) => {
        if (!lost) this.witness.taskCreated(created);
      });
    } else this.witness.taskCreated(created);
    return result;
  }

  commit(taskId: string, events: TaskEvent[], task?: Task): void {
    this.inner.commit(taskId, events, task);
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
    if (this.inner.afterCommit) this.inner.afterCommit(callback);
    else callback();
  }

  flush(): void {
    this.inner.flush?.();
  }

  close(): void {
    this.inner.close();
  }
}
