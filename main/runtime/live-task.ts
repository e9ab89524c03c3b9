import { artifactUpdate, statusUpdate, type StreamEvent, type TaskEvent } from '../domain/events.js';
import { agentMessage, canTransition, isInterrupted, isTerminal, type Task, type TaskState } from '../domain/task.js';
import type { EventSink, StoredTask, TaskStore } from '../ports.js';
import type { ArtifactChunk } from './artifact-stream.js';

export type StreamListener = (event: StreamEvent) => void;

/**
 * A task that is not finished: the one place its state changes. Each change is stored (snapshot +
 * event in one transaction) before anyone hears of it, so a subscriber never sees an event the store
 * could lose. Terminal states are final: a late change after one is ignored, never re-settles.
 */
export class LiveTask {
  task: Task;
  private seq: number;
  readonly abort = new AbortController();
  private readonly listeners = new Set<StreamListener>();
  private settleWaiters: (() => void)[] = [];
  private frozen = false;

  constructor(
    stored: StoredTask,
    private readonly store: TaskStore,
    private readonly sinks: readonly EventSink[],
  ) {
    this.task = stored.task;
    this.seq = stored.lastSeq;
  }

  get id(): string {
    return this.task.id;
  }

  get state(): TaskState {
    return this.task.status.state;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Moves the task to `state` with an optional status text. Returns false (and changes nothing) when
   * the move is not allowed, e.g. a late exit after the task was canceled.
   */
  setStatus(state: TaskState, text?: string, eventMetadata?: Record<string, unknown>): boolean {
    if (this.frozen || !canTransition(this.state, state)) return false;
    const timestamp = new Date().toISOString();
    const message = text === undefined ? undefined : agentMessage(crypto.randomUUID(), text, this.ids());
    this.task.status = { state, timestamp, ...(message ? { message } : {}) };
    const final = isTerminal(state) || isInterrupted(state);
    const event = statusUpdate(this.task, this.seq + 1, this.task.status, final, eventMetadata);
    this.record(event, true);
    if (final) this.wakeSettleWaiters();
    return true;
  }

  /**
   * Stops all further changes: at bridge shutdown the task stays as stored, and the next start's
   * recovery decides what it becomes (a question stays answerable; a running turn fails as restarted).
   */
  freeze(): void {
    this.frozen = true;
  }

  /** Emits an event on the stream without changing state (e.g. a reminder that a question is waiting). */
  announce(eventMetadata: Record<string, unknown>): void {
    if (this.frozen) return;
    const event = statusUpdate(this.task, this.seq + 1, this.task.status, false, eventMetadata);
    this.record(event, false);
  }

  /** Stores facts in metadata; they are saved with the next status change. */
  patchMetadata(patch: Record<string, unknown>): void {
    Object.assign(this.task.metadata, patch);
  }

  appendArtifact(chunk: ArtifactChunk, artifactId: string): void {
    if (this.frozen || isTerminal(this.state)) return;
    let artifact = this.task.artifacts.find((a) => a.artifactId === artifactId);
    if (!artifact) {
      artifact = { artifactId, name: 'reply', parts: [{ kind: 'text', text: '' }] };
      this.task.artifacts.push(artifact);
    }
    const part = artifact.parts[0];
    if (part?.kind === 'text') part.text += chunk.text;
    const event = artifactUpdate(
      this.task,
      this.seq + 1,
      { artifactId, name: 'reply', parts: [{ kind: 'text', text: chunk.text }] },
      { append: chunk.append, lastChunk: chunk.lastChunk },
    );
    this.record(event, false);
  }

  /** Events from now on; the caller sends the current snapshot first. */
  listen(listener: StreamListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once the task is terminal or parked on a question. */
  settled(): Promise<void> {
    if (isTerminal(this.state) || isInterrupted(this.state)) return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push(resolve));
  }

  private record(event: TaskEvent, withSnapshot: boolean): void {
    this.store.commit(this.task.id, [event], withSnapshot ? this.task : undefined);
    this.seq = event.seq;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A subscriber's failure (a closed socket) must not stop the task or the others; see EventFeed.
      }
    }
    for (const sink of this.sinks) sink.publish(event, this.task);
  }

  private wakeSettleWaiters(): void {
    const waiters = this.settleWaiters;
    this.settleWaiters = [];
    for (const wake of waiters) wake();
  }

  private ids(): { taskId: string; contextId: string } {
    return { taskId: this.task.id, contextId: this.task.contextId };
  }
}
