/**
 * The tasks this process is working on, each a LiveTask over the store: adopting one (new, or stored
 * and unfinished after a restart), what callers may see of one (made durable first), and what happens
 * when the store loses a change of one.
 */
import { isTerminal, type Task } from '../domain/task.js';
import type { EventSink, TaskStore } from '../ports.js';
import { LiveTask } from './live-task.js';
import { Scrubber } from './scrubber.js';

export interface LiveTasksOptions {
  store: TaskStore;
  sinks: EventSink[];
  /** A task stopped being live because the store lost a change of it: withdraw its questions and timers. */
  onLost: (taskId: string) => void;
  /** Applied to every status text the bridge writes (failure reasons, warnings): see domain/redaction.ts. */
  redact?: (text: string) => string;
  /** The bridge's tokens, removed from everything a task holds (runtime/scrubber.ts). */
  secrets?: () => readonly string[];
}

export class LiveTasks {
  private readonly live = new Map<string, LiveTask>();
  /** Tasks whose failure is being recorded after the store lost one of their changes. */
  private readonly recordingLoss = new Set<string>();

  private readonly scrub: Scrubber;

  constructor(private readonly opts: LiveTasksOptions) {
    this.scrub = new Scrubber(opts.secrets, opts.redact);
  }

  get(taskId: string): LiveTask | undefined {
    return this.live.get(taskId);
  }

  all(): LiveTask[] {
    return [...this.live.values()];
  }

  /** Takes a task under management until it reaches a terminal state. */
  adopt(task: Task, lastSeq: number): LiveTask {
    const live = new LiveTask(
      { task, lastSeq },
      this.opts.store,
      this.opts.sinks,
      (err) => this.afterLoss(task.id, err),
      this.scrub,
    );
    this.live.set(task.id, live);
    live.listen((event) => {
      if (event.kind === 'status-update' && isTerminal(event.status.state)) this.live.delete(task.id);
    });
    return live;
  }

  /** A stored, unfinished task brought back under management (after a restart). */
  revive(task: Task): LiveTask {
    const existing = this.live.get(task.id);
    if (existing) return existing;
    const stored = this.opts.store.get(task.id);
    return this.adopt(stored?.task ?? task, stored?.lastSeq ?? 0);
  }

  /**
   * A live task as a caller may see it: its pending writes are made durable first (group commit), so
   * no answer shows a state a crash could still lose.
   */
  view(live: LiveTask): Task {
    if (live.unstored) this.opts.store.flush();
    return snapshot(live.task);
  }

  /**
   * The store lost a change of this task (the group's commit failed; its agent turn is already stopped).
   * What is stored is its last durable state, which may say "working" for good: record it as failed
   * (retryable) in a later group. When that is lost too (the disk is still full), the next start's
   * recovery settles it; one try, so a full disk never turns into a loop.
   */
  private afterLoss(taskId: string, err: Error): void {
    this.live.delete(taskId);
    this.opts.onLost(taskId);
    if (this.recordingLoss.delete(taskId)) return;
    const cause = err.cause instanceof Error ? err.cause : err;
    const { store } = this.opts;
    try {
      const stored = store.get(taskId);
      if (!stored || isTerminal(stored.task.status.state)) return;
      this.recordingLoss.add(taskId);
      const live = this.adopt(stored.task, stored.lastSeq);
      live.patchMetadata({ pending: undefined, retryable: true });
      live.setStatus(
        'failed',
        `the bridge could not store this task's progress (${cause.message}); re-send it under a new messageId`,
      );
      store.afterCommit((lost) => lost || this.recordingLoss.delete(taskId));
    } catch {
      // The store cannot even be read now: the next start's recovery settles the task.
      this.recordingLoss.delete(taskId);
    }
  }
}

/** A read-only view: the caller may trim or serialize it but never mutates the live task. */
export function snapshot(task: Task): Task {
  return {
    ...task,
    history: [...task.history],
    artifacts: task.artifacts.map((a) => ({ ...a, parts: a.parts.map((p) => ({ ...p })) })),
    metadata: { ...task.metadata },
  };
}

/**
 * Once every write so far is durable; rejects when the store lost them. Nothing to wait for (no
 * promise, no extra tick) when they already are.
 */
export function durable(store: TaskStore): Promise<void> | undefined {
  let done: { lost?: Error } | undefined;
  let settle: ((lost?: Error) => void) | undefined;
  store.afterCommit((lost) => (settle ? settle(lost) : (done = { ...(lost ? { lost } : {}) })));
  if (done) return done.lost ? Promise.reject(done.lost) : undefined;
  return new Promise((resolve, reject) => (settle = (lost) => (lost ? reject(lost) : resolve())));
}
