import type { TaskEvent } from '../domain/events.js';
import type { Task } from '../domain/task.js';
import type { EventSink } from '../ports.js';

export type FeedListener = (event: TaskEvent, task: Task) => void;

/**
 * The bridge-wide event feed: every task's events, for the desktop shell, `contactor watch` and the
 * SSE feed. A listener that throws is dropped from this one event only; it never breaks the bridge.
 */
export class EventFeed implements EventSink {
  private readonly listeners = new Set<FeedListener>();

  publish(event: TaskEvent, task: Task): void {
    for (const listener of this.listeners) {
      try {
        listener(event, task);
      } catch {
        // A consumer's bug must not stop the task that produced the event.
      }
    }
  }

  listen(listener: FeedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
