import { taskNotFound } from '../domain/errors.js';
import type { StreamEvent } from '../domain/events.js';
import type { Task } from '../domain/task.js';
import type { TaskPage, TaskQuery, TaskStore } from '../ports.js';
import { snapshot, type LiveTasks } from './live-tasks.js';
import { latestQuestions, type AnsweredQuestion } from './question-log.js';

export interface Subscription {
  unsubscribe(): void;
}

/**
 * Every read of tasks the dispatcher serves: the stored task, or the live one where a task is in
 * memory (its latest change may not be stored yet: LiveTasks.read flushes first), and subscriptions
 * that start from either without missing or repeating an event.
 */
export class TaskReads {
  constructor(
    private readonly store: TaskStore,
    private readonly live: LiveTasks,
    /** A `tasks/list` page with artifacts stops before this many bytes of tasks (TaskQuery.maxBytes). */
    private readonly maxPageBytes: number | undefined,
  ) {}

  get(taskId: string): Task {
    const live = this.live.get(taskId);
    const shown = live && this.live.read(live);
    if (shown) return shown;
    const stored = this.store.get(taskId);
    if (!stored) throw taskNotFound(taskId);
    return stored.task;
  }

  list(query: TaskQuery): TaskPage {
    const maxBytes = query.maxBytes ?? this.maxPageBytes;
    const page = this.store.list(maxBytes === undefined ? query : { ...query, maxBytes });
    page.tasks = page.tasks.map((t) => {
      const live = this.live.get(t.id);
      const snap = live && this.live.read(live);
      if (!snap) return t;
      return query.includeArtifacts ? snap : { ...snap, artifacts: [] };
    });
    return page;
  }

  /** Open questions, oldest first. */
  pending(): Task[] {
    return this.store
      .tasksInStates(['input-required', 'auth-required'])
      .map((t) => {
        const live = this.live.get(t.id);
        return (live && this.live.read(live)) ?? t;
      })
      .sort((a, b) => pendingSince(a).localeCompare(pendingSince(b)));
  }

  /**
   * How the latest questions ended (answered, auto-decided, expired), newest first; with `createdByAgent`,
   * those of the tasks that agent created only, chosen by the store before the latest are taken.
   */
  questionHistory(limit: number, createdByAgent?: string): AnsweredQuestion[] {
    if (limit <= 0) return [];
    const query = { pageSize: 100, includeArtifacts: false, ...(createdByAgent ? { createdByAgent } : {}) };
    return latestQuestions(this.list(query).tasks, limit);
  }

  /** The seq of the task's latest event (0 for none): a stream that starts now resumes after it. */
  lastSeq(taskId: string): number {
    return this.live.get(taskId)?.lastSeq ?? this.store.get(taskId)?.lastSeq ?? 0;
  }

  /**
   * Every event of the task from now on, after a first event that brings the caller up to date: the
   * current Task, or (with `afterSeq`) the stored events it missed. `onEnd` fires when no more events
   * will come on this subscription (terminal or parked state).
   */
  subscribe(taskId: string, afterSeq: number | undefined, listener: (e: StreamEvent) => void): Subscription {
    // Everything written is durable and told before this listener joins: it hears each event once.
    this.store.flush();
    const live = this.live.get(taskId);
    const stored = live ? undefined : this.store.get(taskId);
    const task = live?.task ?? stored?.task;
    if (!task) throw taskNotFound(taskId);
    const lastSeq = live?.lastSeq ?? stored?.lastSeq ?? 0;
    if (afterSeq === undefined || afterSeq > lastSeq) {
      listener({ kind: 'task', seq: lastSeq, task: snapshot(task) });
    } else {
      for (const event of this.store.eventsAfter(taskId, afterSeq)) listener(event);
    }
    const unsubscribe = live ? live.listen(listener) : () => undefined;
    return { unsubscribe };
  }
}

function pendingSince(task: Task): string {
  return task.metadata.pending?.createdAt ?? task.status.timestamp;
}
