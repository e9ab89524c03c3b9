import { REAL_TIMERS, type Timers } from './timers.js';
import { TurnDeadlines, type Deadline } from './turn-deadlines.js';

/**
 * A turn's time budget that stops counting while a person is deciding: `timeout_s` measures the agent,
 * not the human. Its deadline sits with every other running turn's (turn-deadlines.ts).
 */
export class TurnTimer {
  private remainingMs: number;
  private startedAt = 0;
  private timer: Deadline | undefined;
  private pausedCount = 0;
  private fired = false;
  private readonly deadlines: TurnDeadlines;

  constructor(
    budgetMs: number,
    private readonly onTimeout: () => void,
    private readonly clock: Timers = REAL_TIMERS,
  ) {
    this.remainingMs = budgetMs;
    this.deadlines = TurnDeadlines.of(clock);
  }

  get timedOut(): boolean {
    return this.fired;
  }

  start(): void {
    this.startedAt = this.clock.now();
    this.timer = this.deadlines.add(this.remainingMs, () => {
      this.timer = undefined;
      this.fired = true;
      this.onTimeout();
    });
  }

  /** Pauses may nest (two questions at once); the clock runs again when the last one is answered. */
  pause(): void {
    this.pausedCount += 1;
    if (this.pausedCount > 1 || !this.timer) return;
    this.deadlines.remove(this.timer);
    this.timer = undefined;
    this.remainingMs -= this.clock.now() - this.startedAt;
  }

  resume(): void {
    if (this.pausedCount === 0) return;
    this.pausedCount -= 1;
    if (this.pausedCount === 0 && !this.fired && !this.timer) this.start();
  }

  stop(): void {
    if (this.timer) this.deadlines.remove(this.timer);
    this.timer = undefined;
    this.pausedCount = 0;
  }
}
