/**
 * A clock a test moves by hand, for the bridge's budgets (main/runtime/timers.ts: question expiry, turn
 * timeouts): `now` stands still until the test advances it, and a timer runs only when the test moves the
 * clock past its due time. A budget then cannot race a slow restart, a slow agent start or a slow subscriber.
 */
import type { Timers } from '../../main/runtime/timers.js';

export class ManualTimers implements Timers {
  private time = Date.now();
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; run: () => void }>();

  now(): number {
    return this.time;
  }

  setTimeout(run: () => void, ms: number): number {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), run });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** When the timers not yet run are due (epoch ms), earliest first. */
  due(): number[] {
    return [...this.timers.values()].map((t) => t.at).sort((a, b) => a - b);
  }

  /** Moves the clock on by `ms`. */
  advanceBy(ms: number): void {
    this.advanceTo(this.time + ms);
  }

  /** Moves the clock to `at`, running every timer due by then in due order (those they set included). */
  advanceTo(at: number): void {
    for (;;) {
      const next = [...this.timers.entries()].filter(([, t]) => t.at <= at).sort((a, b) => a[1].at - b[1].at)[0];
      if (next === undefined) break;
      this.timers.delete(next[0]);
      this.time = next[1].at;
      next[1].run();
    }
    this.time = Math.max(this.time, at);
  }
}
