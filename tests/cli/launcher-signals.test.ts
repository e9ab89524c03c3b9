/**
 * main/cli/launcher-signals.ts, every order in which the two copies of one Ctrl-C can reach the CLI relaunched
 * by bin/contactor.js: the terminal's own signal and the launcher's message. A process stand-in (an
 * EventEmitter with Node's signal semantics: no listener, the process ends) and a queue in place of
 * setImmediate, so each order is played exactly, with no clock. The real launcher in a terminal is in
 * interrupt.test.ts.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { listenForLauncherSignals, type SignalProcess } from '../../main/cli/launcher-signals.js';

class StandIn extends EventEmitter {
  readonly pid = 4242;
  readonly env: NodeJS.ProcessEnv = { CONTACTOR_RELAUNCHED: '1' };
  unrefs = 0;
  readonly channel = { unref: () => void (this.unrefs += 1) };
  /** Signals that ended the process (sent to itself with no listener left). */
  readonly ended: string[] = [];
  /** What the verb's listener (Interrupts, in the CLI) saw. */
  readonly seen: string[] = [];
  private readonly queue: (() => void)[] = [];

  /**
   * As Node's process does (lib/internal/process/signal.js, startListeningIfSignal / stopListeningIfSignal): a
   * signal with a listener is emitted to it as `emit(type, type)`; with none left, the signal's default action
   * ends the process.
   */
  kill(pid: number, signal: string): void {
    expect(pid).toBe(this.pid);
    if (this.listenerCount(signal) > 0) this.emit(signal, signal);
    else this.ended.push(signal);
  }

  /** A signal from outside (the terminal, or a kill to this pid). */
  signal(name: string): void {
    this.kill(this.pid, name);
  }

  /** The launcher's message. */
  message(value: unknown): void {
    this.emit('message', value);
  }

  later = (run: () => void): void => void this.queue.push(run);

  /** Runs the deferred work of one loop turn (what setImmediate queued before it). */
  turn(): void {
    for (const run of this.queue.splice(0)) run();
  }

  /** A verb listening for `name`, as Interrupts does. */
  listen(name: string): () => void {
    const listener = (n: string) => this.seen.push(n);
    this.on(name, listener);
    return () => this.off(name, listener);
  }
}

function relaunched(): StandIn {
  const proc = new StandIn();
  listenForLauncherSignals(proc as unknown as SignalProcess, proc.later);
  return proc;
}

const SIGINT = { contactorSignal: 'SIGINT' };

describe('the copies of one signal, in every order', () => {
  it('the terminal’s first, then the launcher’s: one', () => {
    const proc = relaunched();
    proc.listen('SIGINT');
    proc.signal('SIGINT');
    proc.message(SIGINT);
    proc.turn();
    proc.turn();
    expect(proc.seen).toEqual(['SIGINT']);
  });

  it('the launcher’s read first, the terminal’s handled in the same poll: one', () => {
    const proc = relaunched();
    proc.listen('SIGINT');
    proc.message(SIGINT);
    proc.signal('SIGINT');
    proc.turn();
    proc.turn();
    expect(proc.seen).toEqual(['SIGINT']);
  });

  it('the launcher’s read first, the terminal’s handled only in the next poll: one', () => {
    const proc = relaunched();
    proc.listen('SIGINT');
    proc.message(SIGINT);
    proc.turn();
    proc.signal('SIGINT');
    proc.turn();
    expect(proc.seen).toEqual(['SIGINT']);
  });

  it('only the launcher’s (a kill to its pid): raised, once', () => {
    const proc = relaunched();
    proc.listen('SIGINT');
    proc.message(SIGINT);
    proc.turn();
    proc.turn();
    expect(proc.seen).toEqual(['SIGINT']);
  });

  it('two Ctrl-Cs, each copy in its own order: two', () => {
    const proc = relaunched();
    proc.listen('SIGINT');
    proc.signal('SIGINT');
    proc.message(SIGINT);
    proc.turn();
    proc.turn();
    proc.message(SIGINT);
    proc.signal('SIGINT');
    proc.turn();
    proc.turn();
    expect(proc.seen).toEqual(['SIGINT', 'SIGINT']);
  });

  it('each signal is counted by its name: a SIGTERM to the launcher after a Ctrl-C is raised', () => {
    const proc = relaunched();
    proc.listen('SIGINT');
    proc.listen('SIGTERM');
    proc.signal('SIGINT');
    proc.message(SIGINT);
    proc.message({ contactorSignal: 'SIGTERM' });
    proc.turn();
    proc.turn();
    expect(proc.seen).toEqual(['SIGINT', 'SIGTERM']);
  });
});

describe('with no verb listening', () => {
  it('a passed-on signal ends the process as the signal would', () => {
    const proc = relaunched();
    proc.message({ contactorSignal: 'SIGHUP' });
    proc.turn();
    proc.turn();
    expect(proc.ended).toEqual(['SIGHUP']);
  });

  it('a direct one still ends it, once the verb stopped listening', () => {
    const proc = relaunched();
    const stop = proc.listen('SIGINT');
    stop();
    proc.signal('SIGINT');
    expect(proc.ended).toEqual(['SIGINT']);
  });
});

describe('what it listens to', () => {
  it('ignores anything else on the channel', () => {
    const proc = relaunched();
    proc.listen('SIGINT');
    for (const junk of [{ contactorSignal: 'SIGKILL' }, { contactorSignal: 'SIGINT', extra: 1 }, 'SIGINT', null])
      proc.message(junk);
    proc.turn();
    proc.turn();
    expect(proc.seen).toEqual([]);
    expect(proc.ended).toEqual([]);
  });

  it('nothing unless relaunched with a channel, and the channel never keeps the CLI running', () => {
    const plain = new StandIn();
    delete plain.env.CONTACTOR_RELAUNCHED;
    listenForLauncherSignals(plain as unknown as SignalProcess, plain.later);
    expect(plain.listenerCount('message') + plain.listenerCount('SIGINT')).toBe(0);
    expect(relaunched().unrefs).toBe(1);
  });
});
