import { artifactUpdate, statusUpdate, type StreamEvent, type TaskEvent } from '../domain/events.js';
import {
  agentMessage,
  canTransition,
  isSettled,
  isTerminal,
  type Part,
  type Task,
  type TaskState,
} from '../domain/task.js';
import type { EventSink, StoredTask, TaskStore } from '../ports.js';
import type { ArtifactChunk } from './artifact-stream.js';
import { LazyAbort } from './lazy-abort.js';
import { notStored } from './not-stored.js';
import { Scrubber } from './scrubber.js';

export type StreamListener = (event: StreamEvent) => void;

/**
 * The feed's notice that a task was stored (docs/contract.md#the-event-feed): a task waiting in its agent's
 * queue has no event of its own until it starts. Seq 0: it is not one of the task's stored events. Made here,
 * with every other task event: what it carries is the task as stored (the caller's own request).
 */
export function createdNotice(task: Task): TaskEvent {
  return statusUpdate(task, 0, task.status, isTerminal(task.status.state), { event: 'created' });
}

/**
 * A task that is not finished: the one place its state changes. Each change is written to the store
 * (snapshot + event atomically) at once, but listeners, sinks and `settled` hear of it only once the
 * store says it is durable (`afterCommit`: group commit may make that the end of the event-loop turn),
 * so a subscriber never sees an event the store could lose. `task` is ahead of the store meanwhile:
 * readers check `unstored` and flush first. Terminal states are final: a late change after one is
 * ignored, never re-settles.
 *
 * It is also the one choke point for what agents report (runtime/scrubber.ts): every text, value and part
 * that enters the task or one of its events passes the scrubber here, whichever channel later serves it.
 */
export class LiveTask {
  task: Task;
  private seq: number;
  /** Events written but not yet durable (not yet told to anyone). */
  private unstoredCount = 0;
  private lost: Error | undefined;
  /** Stops the task's running turn (cancel, or a lost change); its signal is made only when asked for. */
  readonly abort = new LazyAbort();
  private readonly listeners = new Set<StreamListener>();
  /** Each wakes on a final event after `after` (a change made before it asked never wakes it). */
  private settleWaiters: { after: number; resolve: () => void; reject: (err: Error) => void }[] = [];
  /** seq of the last final status event written. */
  private finalSeq = 0;
  private frozen = false;
  /**
   * The JSON text the store keeps for `task`, from the last commit that wrote the snapshot (the store
   * builds it once, TaskStore.commit); dropped by every change made since, so it is `task` exactly.
   */
  private committedJson: string | undefined;

  /** `onLost` runs when the store lost a change of this task (the commit failed): it is frozen then. */
  constructor(
    stored: StoredTask,
    private readonly store: TaskStore,
    private readonly sinks: readonly EventSink[],
    private readonly onLost: (err: Error) => void,
    /** The bridge's tokens out of everything, credentials out of status texts; nothing when absent. */
    private readonly scrub: Scrubber = new Scrubber(),
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

  /** The not-stored error, once the store lost a change of this task (it is frozen then). */
  get lostWith(): Error | undefined {
    return this.lost;
  }

  /** True while a change is written but not yet durable: flush the store before showing `task`. */
  get unstored(): boolean {
    return this.unstoredCount > 0;
  }

  /**
   * The task as JSON text, the very text the store keeps for it, when the task is finished and that is
   * durable: a reply can carry it as it is instead of serializing the task again. Only a finished task:
   * its changes all pass through this class (a question's answer adds to `history` from outside, but
   * only while the task waits on it, and the next status change writes the snapshot again).
   */
  get storedJson(): string | undefined {
    return isTerminal(this.state) && this.unstoredCount === 0 ? this.committedJson : undefined;
  }

  /**
   * Moves the task to `state` with an optional status text. Returns false (and changes nothing) when
   * the move is not allowed, e.g. a late exit after the task was canceled.
   */
  setStatus(state: TaskState, text?: string, eventMetadata?: Record<string, unknown>): boolean {
    if (this.frozen || !canTransition(this.state, state)) return false;
    const status: Task['status'] = { state, timestamp: new Date().toISOString() };
    if (text !== undefined) status.message = agentMessage(crypto.randomUUID(), this.scrub.statusText(text), this.ids());
    this.task.status = status;
    const metadata = eventMetadata && this.scrub.value(eventMetadata);
    const event = statusUpdate(this.task, this.seq + 1, status, isSettled(state), metadata);
    this.record(event, true);
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
    const event = statusUpdate(this.task, this.seq + 1, this.task.status, false, this.scrub.value(eventMetadata));
    this.record(event, false);
  }

  /**
   * Writes the task as it is now, without an event: for facts that must survive a crash before the next
   * status change, such as the pid and start time of the agent running it (SECURITY.md#agent-processes).
   */
  saveSnapshot(): void {
    if (this.frozen || isTerminal(this.state)) return;
    this.committedJson = this.store.commit(this.task.id, [], this.task);
    this.store.afterCommit((lost) => lost && this.lose(lost));
  }

  /**
   * Writes facts a backend reports after the task settled (how a canceled turn ended: the agent stopped
   * it, or its process was killed): the task is already canceled when the backend learns that, and no
   * later status change would save them. No event: the task's history stays as it settled.
   */
  saveLateFacts(): void {
    if (this.frozen || !isTerminal(this.state)) return;
    this.committedJson = this.store.commit(this.task.id, [], this.task);
    this.store.afterCommit((lost) => lost && this.lose(lost));
  }

  /** Stores facts in metadata; they are saved with the next status change (or `saveSnapshot`). */
  patchMetadata(patch: Record<string, unknown>): void {
    // What agents report (a tool call in a question, a peer's metadata) is cut at the depth the edge
    // accepts, so no reader's parser meets what a request could not send, and loses the bridge's tokens.
    this.committedJson = undefined;
    for (const [key, value] of Object.entries(patch)) this.task.metadata[key] = this.scrub.value(value);
    if (typeof patch.warning === 'string') this.task.metadata.warning = this.scrub.statusText(patch.warning);
  }

  /**
   * Adds a chunk's parts to the reply artifact in order. The stored artifact joins consecutive plain text
   * (the stream's many small text chunks read as one text), and keeps every other part as it came.
   */
  appendArtifact(chunk: ArtifactChunk, artifactId: string): void {
    if (this.frozen || isTerminal(this.state)) return;
    this.committedJson = undefined;
    let artifact = this.task.artifacts.find((a) => a.artifactId === artifactId);
    if (!artifact) {
      artifact = { artifactId, name: 'reply', parts: [] };
      this.task.artifacts.push(artifact);
    }
    const parts = chunk.parts.map((part) => this.scrub.part(part));
    for (const part of parts) {
      // The empty text of a bare `lastChunk` marker adds nothing to what is kept.
      if (part.kind === 'text' && part.text === '' && artifact.parts.length > 0) continue;
      const last = artifact.parts.at(-1);
      if (part.kind === 'text' && !part.metadata && last?.kind === 'text' && !last.metadata) last.text += part.text;
      else artifact.parts.push(ownCopy(part));
    }
    const event = artifactUpdate(
      this.task,
      this.seq + 1,
      { artifactId, name: 'reply', parts },
      { append: chunk.append, lastChunk: chunk.lastChunk },
    );
    this.record(event, false);
  }

  /**
   * Takes a turn's reply text back off the task (saved with the next status change): a reply that turned
   * out to be a question is the question (status.message, metadata.pending), not a result. What else the
   * turn produced stays (files, data, notes about dropped parts): that is the agent's output, not the
   * question. The artifact goes when nothing is left of it.
   */
  dropReplyText(artifactId: string): void {
    if (this.frozen || isTerminal(this.state)) return;
    const artifact = this.task.artifacts.find((a) => a.artifactId === artifactId);
    if (!artifact) return;
    this.committedJson = undefined;
    artifact.parts = artifact.parts.filter((p) => p.kind !== 'text' || p.metadata !== undefined);
    if (artifact.parts.length === 0) this.task.artifacts = this.task.artifacts.filter((a) => a !== artifact);
  }

  /** Events from now on; the caller sends the current snapshot first. */
  listen(listener: StreamListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves once the task is terminal or parked on a question and that state is durable; rejects
   * when the store lost a change of this task.
   */
  settled(): Promise<void> {
    if (this.lost) return Promise.reject(this.lost);
    const settledNow = isSettled(this.state);
    if (this.unstoredCount === 0 && settledNow) return Promise.resolve();
    // Settled but not yet durable: the final event that settled it is the one to wait for.
    const after = settledNow ? this.finalSeq - 1 : this.seq;
    return new Promise((resolve, reject) => this.settleWaiters.push({ after, resolve, reject }));
  }

  private record(event: TaskEvent, withSnapshot: boolean): void {
    const json = this.store.commit(this.task.id, [event], withSnapshot ? this.task : undefined);
    if (withSnapshot) this.committedJson = json;
    this.seq = event.seq;
    this.unstoredCount += 1;
    if (event.kind === 'status-update' && event.final) this.finalSeq = event.seq;
    // Sinks get the task as it is after this event: its status now, not a later one of the same group.
    const status = this.task.status;
    this.store.afterCommit((lost) => (lost ? this.lose(lost) : this.deliver(event, status)));
  }

  private deliver(event: TaskEvent, status: Task['status']): void {
    this.unstoredCount -= 1;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A subscriber's failure (a closed socket) must not stop the task or the others; see EventFeed.
      }
    }
    const task = status === this.task.status ? this.task : { ...this.task, status };
    for (const sink of this.sinks) sink.publish(event, task);
    if (this.settleWaiters.length === 0) return;
    const all = this.unstoredCount === 0 && isSettled(this.state);
    const final = event.kind === 'status-update' && event.final;
    if (!all && !final) return;
    // Most often every waiter wakes (a blocking send has one): no arrays are built then.
    const waiters = this.settleWaiters;
    const wakesAll = all || waiters.every((w) => event.seq > w.after);
    this.settleWaiters = wakesAll ? [] : waiters.filter((w) => event.seq <= w.after);
    for (const waiter of waiters) if (wakesAll || event.seq > waiter.after) waiter.resolve();
  }

  /**
   * The store could not keep a change (or the task's creation): nobody hears of it, waiters fail, and
   * the task stops here — its agent turn too, so no agent works on for a task its caller was told failed.
   */
  lose(err: Error): void {
    if (this.lost) return;
    this.lost = notStored(err, this.task.id);
    this.frozen = true;
    this.abort.abort();
    const waiters = this.settleWaiters;
    this.settleWaiters = [];
    for (const waiter of waiters) waiter.reject(this.lost);
    this.onLost(this.lost);
  }

  private ids(): { taskId: string; contextId: string } {
    return { taskId: this.task.id, contextId: this.task.contextId };
  }
}

/**
 * The artifact's own copy of a part the event carries too, so a later merge into it never changes the
 * event: plain text has nothing nested to share, anything else is copied deep.
 */
function ownCopy(part: Part): Part {
  return part.kind === 'text' && !part.metadata ? { ...part } : structuredClone(part);
}
