import { Shard, type ShardJob } from './shards.js';

/**
 * The bridge-wide cap on agent turns running at once (`max_concurrent_tasks`). A counting semaphore,
 * first come first served: a turn beyond the cap waits for a slot, it is never dropped.
 */
export class TurnSlots {
  private inUse = 0;
  private readonly waiters: (() => void)[] = [];
  private cap: number;

  constructor(limit: number) {
    this.cap = checked(limit);
  }

  get limit(): number {
    return this.cap;
  }

  /**
   * A new cap (a config reload). Raised: waiting turns start at once, in order. Lowered: running turns
   * finish; no new one starts until fewer than the new cap run.
   */
  resize(limit: number): void {
    this.cap = checked(limit);
    this.handOut();
  }

  get running(): number {
    return this.inUse;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Resolves with the function that gives the slot back (calling it twice gives back one slot). */
  acquire(): Promise<() => void> {
    return new Promise((resolve) => this.take(resolve));
  }

  /**
   * Calls `onSlot` with the function that gives the slot back: at once when one is free, else when one is
   * handed to it (after the call that freed it has returned).
   */
  take(onSlot: (release: () => void) => void): void {
    if (this.inUse < this.cap) {
      this.inUse += 1;
      onSlot(this.releaser());
      return;
    }
    this.waiters.push(() => {
      const release = this.releaser();
      queueMicrotask(() => onSlot(release));
    });
  }

  private releaser(): () => void {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      // The slot passes straight to the next waiter, so a newcomer can never overtake it (unless the
      // cap was lowered meanwhile: then it is given back).
      const next = this.inUse <= this.cap ? this.waiters.shift() : undefined;
      if (next) next();
      else this.inUse -= 1;
    };
  }

  private handOut(): void {
    while (this.inUse < this.cap && this.waiters.length > 0) {
      this.inUse += 1;
      this.waiters.shift()!();
    }
  }
}

function checked(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1)
    throw new Error(`max_concurrent_tasks must be a whole number of at least 1, not ${limit}`);
  return limit;
}

/**
 * A Shard whose jobs also hold one bridge-wide slot. The slot is taken after the agent's own turn has
 * come (so one busy agent cannot hoard slots with its queue) and given back with the shard slot: when
 * the turn ends or parks on a question. A turn resumed after an answer does not queue for a slot again:
 * the agent is already mid-turn, waiting on that answer.
 */
export class SlottedShard extends Shard {
  constructor(
    agent: string,
    maxQueue: number,
    private readonly slots: TurnSlots,
  ) {
    super(agent, maxQueue);
  }

  protected override run(job: ShardJob, release: () => void): void {
    this.slots.take((freeSlot) => {
      const releaseBoth = (): void => {
        freeSlot();
        release();
      };
      super.run(job, releaseBoth);
    });
  }
}
