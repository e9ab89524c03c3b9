/**
 * The clock the runtime's budgets run on: question expiry and reminders (pending-clock.ts) and each turn's
 * timeout (turn-timer.ts). The real one unless wiring is given another: tests drive their own, so a budget
 * ends when the test says, never because a loaded machine was slow.
 */
export interface Timers {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * A handle of the real clock for one dispatcher. Turn deadlines are shared per clock (turn-deadlines.ts), so
 * each dispatcher gets its own: a bridge that stopped with a turn still timed (or whose timer a test's fake
 * timers took) can never hold back the deadlines of another bridge in the same process.
 */
export function ownRealClock(): Timers {
  return {
    now: () => REAL_TIMERS.now(),
    setTimeout: (run, ms) => REAL_TIMERS.setTimeout(run, ms),
    clearTimeout: (handle) => REAL_TIMERS.clearTimeout(handle),
  };
}
