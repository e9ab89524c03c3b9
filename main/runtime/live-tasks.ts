/**
 * The tasks this process is working on, each a LiveTask over the store: adopting one (new, or stored
 * and unfinished after a restart), what callers may see of one (made durable first), and what happens
 * when the store loses a change of one.
 */
import { isTerminal, type Task } from '../domain/task.js';
import type { EventSink, TaskStore } from '../ports.js';
import { LiveTask } from './live-task.js';
import { notStored } from './not-stored.js';
import { Scrubber } from './scrubber.js';

/** The first retry of a failure the store could not keep; each next one waits twice as long, up to the max. */
export const RETRY_LOSS_MS = 5_000;
export const RETRY_LOSS_MAX_MS = 60_000;

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

/** What a send answers: the task, and its stored JSON text when a reply may carry that as it is. */
export interface SendAnswer {
  /** The task as the caller may see it. */
  readonly task: Task;
  /** The JSON text the store keeps for exactly `task` (a finished task, see LiveTask.storedJson). */
  readonly storedJson?: string;
}

export class LiveTasks {
  private readonly live = new Map<string, LiveTask>();
  /** Tasks whose failure is being recorded after the store lost one of their changes → tries so far. */
  private readonly recordingLoss = new Map<string, number>();
  /** Tasks whose failure could not be stored either (the disk is still full) → the next try. */
  private readonly retries = new Map<string, NodeJS.Timeout>();

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
    if (live.unstored) {
      try {
        this.opts.store.flush();
      } catch (err) {
        // A full disk lost the change: the caller hears that (not-stored, retryable), not an internal error.
        throw live.lostWith ?? err;
      }
    }
    return snapshot(live.task);
  }

  /**
   * A settled live task as its send answers it: with the store's own JSON text of it when that is the
   * task exactly (LiveTask.storedJson), so a reply sends that text and copies nothing; the copy of the
   * task is made only if the caller reads it.
   */
  answer(live: LiveTask): SendAnswer {
    const storedJson = live.storedJson;
    if (storedJson === undefined) return { task: this.view(live) };
    let task: Task | undefined;
    return {
      storedJson,
      get task() {
        return (task ??= snapshot(live.task));
      },
    };
  }

  /**
   * A live task as a reader sees it, or undefined when the store just lost its pending change: the
   * reader then answers from the store, the task's last durable state. Reads never fail on a write
   * they did not make (a full disk must not take `tasks/get` down with it).
   */
  read(live: LiveTask): Task | undefined {
    try {
      return this.view(live);
    } catch (err) {
      if (live.lostWith) return undefined;
      throw err;
    }
  }

  /** Stops the retries of failures not yet stored (the next start's recovery settles those tasks). */
  close(): void {
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }

  /**
   * The store lost a change of this task (the group's commit failed; its agent turn is already stopped).
   * What is stored is its last durable state, which would say "working" for good: record it as failed
   * (retryable) in a later group. While the disk stays full that is lost too: it is tried again, less
   * and less often (RETRY_LOSS_MS up to RETRY_LOSS_MAX_MS), so the task ends as soon as space returns and
   * a full disk never turns into a busy loop.
   */
  private afterLoss(taskId: string, err: Error): void {
    this.live.delete(taskId);
    this.opts.onLost(taskId);
    const tries = this.recordingLoss.get(taskId);
    if (tries !== undefined) {
      this.recordingLoss.delete(taskId);
      this.retryLater(taskId, err, tries);
      return;
    }
    this.recordLoss(taskId, err, 0);
  }

  private recordLoss(taskId: string, err: Error, tries: number): void {
    const cause = err.cause instanceof Error ? err.cause : err;
    const { store } = this.opts;
    try {
      const stored = store.get(taskId);
      if (!stored || isTerminal(stored.task.status.state)) return;
      this.recordingLoss.set(taskId, tries + 1);
      const live = this.adopt(stored.task, stored.lastSeq);
      live.patchMetadata({ pending: undefined, retryable: true });
      live.setStatus(
        'failed',
        `the bridge could not store this task's progress (${cause.message}); re-send it under a new messageId`,
      );
      store.afterCommit((lost) => lost || this.recordingLoss.delete(taskId));
    } catch {
      // The store cannot even be read now: try again later, as for a lost write.
      this.recordingLoss.delete(taskId);
      this.retryLater(taskId, err, tries + 1);
    }
  }

  private retryLater(taskId: string, err: Error, tries: number): void {
    if (this.retries.has(taskId)) return;
    const delay = Math.min(RETRY_LOSS_MS * 2 ** Math.max(0, tries - 1), RETRY_LOSS_MAX_MS);
    const timer = setTimeout(() => {
      this.retries.delete(taskId);
      this.recordLoss(taskId, err, tries);
    }, delay);
    // A pending retry never keeps the process alive: the next start's recovery settles the task too.
    timer.unref();
    this.retries.set(taskId, timer);
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
  if (done) return done.lost ? Promise.reject(notStored(done.lost)) : undefined;
  return new Promise((resolve, reject) => (settle = (lost) => (lost ? reject(notStored(lost)) : resolve())));
}
