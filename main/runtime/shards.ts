import { BridgeError } from '../domain/errors.js';

/**
 * One agent's queue. Tasks for one agent start in order, one at a time; different agents have their
 * own shards and never wait for each other. A running job hands its slot back early by calling
 * `release` (a task parked on a question), so a person thinking never blocks the agent's queue.
 */
export class Shard {
  private tail: Promise<void> = Promise.resolve();
  private waitingCount = 0;
  private runningCount = 0;
  /** Places held by accepted sends not yet enqueued (see `reserve`). */
  private reservedCount = 0;

  constructor(
    private readonly agent: string,
    private readonly maxQueue: number,
  ) {}

  get waiting(): number {
    return this.waitingCount + this.reservedCount;
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
   * whichever comes first. The promise chain (not a lock) is what keeps one agent's jobs in order.
   */
  enqueue(job: (release: () => void) => Promise<void>): void {
    this.assertRoom();
    this.waitingCount += 1;
    this.tail = this.tail.then(
      () =>
        new Promise<void>((slotFreed) => {
          this.waitingCount -= 1;
          this.runningCount += 1;
          let released = false;
          const release = (): void => {
            if (released) return;
            released = true;
            this.runningCount -= 1;
            slotFreed();
          };
          job(release).then(release, release);
        }),
    );
  }
}

/**
 * Per-key promise chain: turns of one conversation (agent + contextId) never overlap, even when an
 * earlier turn is parked on a question and has released the agent's shard slot. Without it a second
 * message in the same context would start a second prompt on the same agent session.
 */
export class KeyedChain {
  private readonly tails = new Map<string, Promise<void>>();

  run(key: string, work: () => Promise<void>): Promise<void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return next;
  }
}
