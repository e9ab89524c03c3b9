import { BridgeError } from '../domain/errors.js';

/** A queued job: it runs once its turn comes, and calls `release` when its slot may go to the next. */
export type ShardJob = (release: () => void) => Promise<void>;

/**
 * One agent's queue. Tasks for one agent start in order, one at a time; different agents have their
 * own shards and never wait for each other. A running job hands its slot back early by calling
 * `release` (a task parked on a question), so a person thinking never blocks the agent's queue.
 *
 * A plain queue and a counter, not a promise chain: a job starts at once when the agent is free, and a
 * send pays for no promise of its own to wait in line.
 */
export class Shard {
  private readonly queue: ShardJob[] = [];
  private runningCount = 0;
  /** Places held by accepted sends not yet enqueued (see `reserve`). */
  private reservedCount = 0;

  constructor(
    private readonly agent: string,
    private readonly maxQueue: number,
  ) {}

  get waiting(): number {
    return this.queue.length + this.reservedCount;
  }

  get running(): number {
    return this.runningCount;
  }

  /** Throws QueueFull when the queue is at its cap; nothing is dropped silently. */
  assertRoom(): void {
    if (this.waiting >= this.maxQueue) {
      throw new BridgeError(
        'queue-full',
        `agent "${this.agent}" already has ${this.waiting} tasks queued (max_queue ${this.maxQueue}); retry later`,
      );
    }
  }

  /**
   * Holds a queue place from the moment a send is accepted until its job is enqueued, which may be
   * later (the job first waits for its conversation, see KeyedChain). Without it, sends made in one
   * tick all pass `assertRoom` and the extra tasks fail later instead of being refused. Throws
   * QueueFull; returns the function that gives the place back (call it right before `enqueue`).
   */
  reserve(): () => void {
    this.assertRoom();
    this.reservedCount += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.reservedCount -= 1;
    };
  }

  /**
   * Queues a job. The job's slot is released when it calls `release` or when its promise settles,
   * whichever comes first; the next job starts after that.
   */
  enqueue(job: ShardJob): void {
    this.assertRoom();
    this.queue.push(job);
    this.startNext();
  }

  /** Runs a job whose turn has come; `release` gives its slot back (a subclass may hold more, see SlottedShard). */
  protected run(job: ShardJob, release: () => void): void {
    let running: Promise<void>;
    try {
      running = job(release);
    } catch (err) {
      running = Promise.reject(err as Error);
    }
    running.then(release, release);
  }

  private startNext(): void {
    if (this.runningCount > 0) return;
    const job = this.queue.shift();
    if (!job) return;
    this.runningCount += 1;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.runningCount -= 1;
      // The next job starts once the releasing one has returned: never inside its stack. With none
      // waiting, none is queued: a job enqueued later starts itself (`enqueue`).
      if (this.queue.length > 0) queueMicrotask(() => this.startNext());
    };
    this.run(job, release);
  }
}

/**
 * Per-key queue: turns of one conversation (agent + contextId) never overlap, even when an earlier turn
 * is parked on a question and has released the agent's shard slot. Without it a second message in the
 * same context would start a second prompt on the same agent session. A key's work starts at once when
 * nothing of that key runs; `done` (called once the work is over) starts the next.
 */
export class KeyedChain {
  /** Keys with work running → the work waiting behind it, in order. */
  private readonly waiting = new Map<string, ((done: () => void) => void)[]>();

  run(key: string, work: (done: () => void) => void): void {
    const queue = this.waiting.get(key);
    if (queue) {
      queue.push(work);
      return;
    }
    this.waiting.set(key, []);
    this.start(key, work);
  }

  private start(key: string, work: (done: () => void) => void): void {
    let finished = false;
    const done = (): void => {
      if (finished) return;
      finished = true;
      const next = this.waiting.get(key)?.shift();
      if (next) this.start(key, next);
      else this.waiting.delete(key);
    };
    work(done);
  }
}
