/**
 * A TaskStore that tells the audit log about every task it creates. Creation is the one change that
 * produces no event (a task starts with none, and a loop-guard rejection is born terminal), so the
 * store is where it can be seen — once the insert is durable (see `afterCommit`), never for a replayed
 * messageId.
 */
import type { StreamEvent } from '../domain/events.js';
import type { Task } from '../domain/task.js';
import type { IdempotencyKey, StoredTask, TaskStore } from '../ports.js';
import { DelegatingTaskStore } from '../stores/delegating-store.js';

export interface CreationWitness {
  taskCreated(task: Task): void;
}

export class AuditedTaskStore extends DelegatingTaskStore {
  constructor(
    inner: TaskStore,
    private readonly witness: CreationWitness,
  ) {
    super(inner);
  }

  override create(
    task: Task,
    events: StreamEvent[],
    key?: IdempotencyKey,
  ): { stored: StoredTask; created: boolean; payloadHash?: string } {
    const result = this.inner.create(task, events, key);
    if (!result.created) return result;
    // The caller may change the returned task before the group commits: the entry shows it as created.
    const created = { ...result.stored.task };
    this.afterCommit((lost) => lost || this.witness.taskCreated(created));
    return result;
  }
}
