/**
 * Ctrl-C on Windows, through the launcher (build/launcher/contactor.c). Contactor.exe is a GUI program: run by
 * the launcher it is not attached to the console, so Windows delivers Ctrl-C, Ctrl-Break and the console's
 * closing to the launcher alone. The launcher writes one byte per event into a named pipe it names in
 * CONTACTOR_CONSOLE_EVENTS: 'C' (Ctrl-C) and 'B' (Ctrl-Break) become SIGINT, 'H' (the console closed) SIGHUP,
 * raised the way Node raises a real signal (lib/internal/process/per_thread.js, startListeningIfSignal:
 * `process.emit(name, name)`), so main/cli/interrupts.ts handles them as it does on a POSIX terminal. With no
 * listener, the signal does what Node's default does: the process ends (128 + the signal's number).
 */
import { connect } from 'node:net';
import { visible } from '../domain/visible-text.js';
import { ConsoleEventsPipeSchema } from '../schema/console-events.js';
import { SIGNAL_EXIT_CODES } from './interrupts.js';

export const CONSOLE_EVENTS_ENV = 'CONTACTOR_CONSOLE_EVENTS';

type Raised = 'SIGINT' | 'SIGHUP';
const SIGNAL_OF_EVENT: Record<string, Raised> = { C: 'SIGINT', B: 'SIGINT', H: 'SIGHUP' };

/** Raises `signal` as a real one would reach this process. */
export function raiseSignal(signal: Raised): void {
  if (process.listenerCount(signal) > 0) {
    process.emit(signal, signal);
    return;
  }
  process.exit(SIGNAL_EXIT_CODES[signal]);
}

/**
 * Connects to the launcher's pipe when `env` names one, and raises each event it sends. The variable is taken
 * out of `env` first, so no child (the bridge, an agent) connects in the CLI's place. Never keeps the process
 * alive, and a launcher that is gone only means no more events.
 */
export function listenForConsoleEvents(
  env: NodeJS.ProcessEnv = process.env,
  raise: (signal: Raised) => void = raiseSignal,
): void {
  const value = env[CONSOLE_EVENTS_ENV];
  if (value === undefined) return;
  delete env[CONSOLE_EVENTS_ENV];
  const name = ConsoleEventsPipeSchema.safeParse(value);
  if (!name.success) {
    process.stderr.write(visible(`contactor: ignoring ${CONSOLE_EVENTS_ENV}: ${name.error.issues[0]?.message}\n`));
    return;
  }
  const pipe = connect(name.data);
  pipe.unref();
  pipe.on('error', () => undefined);
  pipe.on('data', (chunk: Buffer) => {
    for (const byte of chunk.toString('latin1')) {
      const signal = SIGNAL_OF_EVENT[byte];
      if (signal) raise(signal);
    }
  });
}
