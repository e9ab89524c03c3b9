/**
 * Ctrl-C while a command waits on the bridge: SIGINT (on Windows the launcher forwards Ctrl-C and Ctrl-Break,
 * which console-events.ts raises as SIGINT), and SIGTERM and SIGHUP (the terminal closed) the same way.
 * The first one aborts `signal`, so the command can undo what it started and say so before it ends; a
 * second one ends the process at once, after the words the command gave `onSecond`
 * (docs/contract.md#cli: exit 130, or 128 + the signal's number).
 */
import { visible } from '../domain/visible-text.js';
import { EXIT } from './exit-codes.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type Caught = (typeof SIGNALS)[number];

/** 128 + the signal's number, as a shell reports a process the signal ended. */
export const SIGNAL_EXIT_CODES: Record<Caught, number> = { SIGHUP: 129, SIGINT: EXIT.interrupted, SIGTERM: 143 };

export class Interrupts {
  private readonly controller = new AbortController();
  /** Aborted by the first interrupt. */
  readonly signal = this.controller.signal;
  private caught: Caught | undefined;
  private lastWords: () => string = () => 'stopped';

  private constructor() {}

  /** Starts catching the signals; `dispose()` hands them back to Node's default (end the process). */
  static listen(): Interrupts {
    const interrupts = new Interrupts();
    for (const name of SIGNALS) process.on(name, interrupts.onSignal);
    return interrupts;
  }

  /** The exit code for the interrupt that came (130 for Ctrl-C). */
  get exitCode(): number {
    return SIGNAL_EXIT_CODES[this.caught ?? 'SIGINT'];
  }

  /** What a second interrupt says on stderr before the process ends without waiting. */
  onSecond(words: () => string): void {
    this.lastWords = words;
  }

  dispose(): void {
    for (const name of SIGNALS) process.off(name, this.onSignal);
  }

  private readonly onSignal = (name: Caught): void => {
    if (this.caught === undefined) {
      this.caught = name;
      this.controller.abort();
      return;
    }
    process.stderr.write(`contactor: ${visible(this.lastWords())}\n`, () => process.exit(this.exitCode));
  };
}
