/**
 * Signals the relaunching launcher (bin/contactor.js on a Node older than the pinned one) passes on. The CLI
 * runs as its child, in the same process group: a Ctrl-C on the terminal reaches both, while a `kill` to the
 * launcher's pid (a script stopping it) reaches the launcher alone. Node cannot tell who sent a signal, so the
 * launcher passes on every SIGINT, SIGTERM and SIGHUP it gets as a message over the IPC channel, and this side
 * counts both ways in: the n-th message is one the CLI already had if n signals of that name came directly,
 * and only a message beyond those is raised. Whichever copy of one Ctrl-C comes first, the command sees one
 * (README.md#stopping-a-send); a second Ctrl-C is still a second.
 *
 * A message can be read before the direct copy of the same signal is handled: the kernel delivers the signal
 * before the CLI runs again, but libuv may report the IPC socket before the signal pipe in one poll. So a
 * message is weighed only after the next poll phase (two turns of setImmediate), when every signal already
 * delivered has been handled. No clock is involved.
 */
import { ForwardedSignalSchema } from '../schema/launcher-signals.js';

const NAMES = ForwardedSignalSchema.shape.contactorSignal.options;
type Forwarded = (typeof NAMES)[number];

/** The parts of `process` this needs (a test passes its own). */
export interface SignalProcess {
  on(event: string, listener: (...args: never[]) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  emit(event: string, ...args: unknown[]): boolean;
  listenerCount(event: string): number;
  kill(pid: number, signal: string): unknown;
  readonly pid: number;
  readonly channel?: { unref(): void } | undefined;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Listens when this process is the launcher's child (CONTACTOR_RELAUNCHED and an IPC channel); elsewhere does
 * nothing. Call it before any verb listens for signals, so every direct one is counted first.
 */
export function listenForLauncherSignals(
  proc: SignalProcess = process as unknown as SignalProcess,
  later: (run: () => void) => void = setImmediate,
): void {
  if (proc.env.CONTACTOR_RELAUNCHED !== '1' || proc.channel === undefined) return;
  const direct = Object.fromEntries(NAMES.map((n) => [n, 0])) as Record<Forwarded, number>;
  const forwarded = { ...direct };
  for (const name of NAMES) {
    const count = (): void => {
      direct[name] += 1;
      // Only this counter listens: do what Node does with no listener, end the process by the signal.
      if (proc.listenerCount(name) === 1) {
        proc.off(name, count);
        proc.kill(proc.pid, name);
      }
    };
    proc.on(name, count);
  }
  proc.on('message', (message: unknown) => {
    const parsed = ForwardedSignalSchema.safeParse(message);
    if (!parsed.success) return;
    const name = parsed.data.contactorSignal;
    forwarded[name] += 1;
    later(() =>
      later(() => {
        // Raised as Node raises a real one; the counter above counts it (and ends the process if alone).
        if (forwarded[name] > direct[name]) proc.emit(name, name);
      }),
    );
  });
  // The channel must not keep the CLI running once its verb is done.
  proc.channel.unref();
}
