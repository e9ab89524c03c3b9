/**
 * One clock for every running turn's timeout (per Timers: the real clock, or a test's). A turn's budget
 * is a deadline in a set and a single timer waits for the earliest, so starting and ending a turn is a
 * set change, not a timer made and cleared: the turns that run at the same time share one timer, which
 * is re-armed when it fires and cleared when no turn is left.
 */
import type { Timers } from './timers.js';

export interface Deadline {
  readonly at: number;
  readonly fire: () => void;
}

export class TurnDeadlines {
  private static readonly byClock = new WeakMap<Timers, TurnDeadlines>();

  /** The deadlines of turns timed by `clock`. */
  static of(clock: Timers): TurnDeadlines {
    let deadlines = TurnDeadlines.byClock.get(clock);
    if (!deadlines) TurnDeadlines.byClock.set(clock, (deadlines = new TurnDeadlines(clock)));
    return deadlines;
  }

  private readonly pending = new Set<Deadline>();
  private timer: unknown;
  /** When the armed timer fires (Infinity when none is armed). */
  private armedFor = Infinity;

  private constructor(private readonly clock: Timers) {}

  /** `fire` runs once `ms` from now, unless `remove` comes first. */
  add(ms: number, fire: () => void): Deadline {
    const now = this.clock.now();
    const deadline = { at: now + ms, fire };
    this.pending.add(deadline);
    // An armed time already past is a timer that is late or lost (a clock that dropped it): arm again, or every
    // later deadline would wait behind one that never fires.
    if (deadline.at < this.armedFor || this.armedFor < now) this.arm(Math.min(deadline.at, this.armedFor));
    return deadline;
  }

  remove(deadline: Deadline): void {
    this.pending.delete(deadline);
    // Nothing left to time: no timer keeps the process awake for a turn that is over.
    if (this.pending.size === 0) this.disarm();
  }

  private arm(at: number): void {
    this.disarm();
    this.armedFor = at;
    this.timer = this.clock.setTimeout(() => this.fired(), Math.max(0, at - this.clock.now()));
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
  }

  private fired(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = this.clock.now();
    const due = [...this.pending].filter((d) => d.at <= now);
    for (const deadline of due) this.pending.delete(deadline);
    let next = Infinity;
    for (const deadline of this.pending) next = Math.min(next, deadline.at);
    if (next < Infinity) this.arm(next);
    for (const deadline of due) deadline.fire();
  }
}
