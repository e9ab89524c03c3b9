/**
 * Ctrl-C during `npm run bench`. A JavaScript SIGINT handler runs only when the event loop turns, and a
 * synchronous fill of 100,000 tasks never lets it; without a handler Node dies by the signal, leaving a
 * half-written database (and its WAL) and the run's temp folder behind. So a long synchronous step runs
 * in slices under `untilInterrupted`: between slices it awaits `nextSlice`, which turns the loop and
 * throws `BenchInterrupted` once SIGINT came; its `finally` blocks clean up, and run.ts removes the
 * run's folder and exits 130 (128 + SIGINT).
 *
 * `npm run bench` starts the bench as `node --import tsx`, not through the `tsx` command: tsx's parent
 * process relays a SIGINT to its child and SIGKILLs it when no answer comes within 2 × 30 ms (tsx
 * dist/cli.mjs `relaySignals`), and from a terminal it gets two (the terminal's and npm's forwarded
 * one), so it killed the bench before its cleanup could run.
 */

export class BenchInterrupted extends Error {
  constructor() {
    super('interrupted (Ctrl-C)');
    this.name = 'BenchInterrupted';
  }
}

/** The exit code of a run stopped by Ctrl-C, as a shell reports a process ended by SIGINT. */
export const INTERRUPTED_EXIT_CODE = 130;

/**
 * Runs `step` with SIGINT turned into an abort of the signal it is given, for as long as the step lasts
 * (before and after it, Ctrl-C ends the bench at once, as Node does by default). The step awaits
 * `nextSlice(signal)` between its slices.
 */
export async function untilInterrupted<T>(step: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = (): void => controller.abort(new BenchInterrupted());
  process.on('SIGINT', onSigint);
  try {
    return await step(controller.signal);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** One turn of the event loop (its poll phase delivers a pending SIGINT), then a throw if one came. */
export async function nextSlice(signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (signal.aborted) throw signal.reason;
}
