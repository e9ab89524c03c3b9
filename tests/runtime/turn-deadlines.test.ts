/**
 * Turn timeouts on one shared clock (runtime/turn-deadlines.ts, turn-timer.ts) and the task's lazy
 * abort (runtime/lazy-abort.ts): every budget still ends when it should, turns running together share
 * one timer, and a turn that ended leaves no timer behind.
 */
import { describe, expect, it, vi } from 'vitest';
import { LazyAbort } from '../../main/runtime/lazy-abort.js';
import { ownRealClock } from '../../main/runtime/timers.js';
import { TurnTimer } from '../../main/runtime/turn-timer.js';
import { ManualTimers } from '../helpers/manual-timers.js';

describe('turn deadlines', () => {
  it('times out each turn at its own budget, with one timer for the turns that run together', () => {
    const clock = new ManualTimers();
    const fired: string[] = [];
    const a = new TurnTimer(1_000, () => fired.push('a'), clock);
    const b = new TurnTimer(3_000, () => fired.push('b'), clock);
    const c = new TurnTimer(2_000, () => fired.push('c'), clock);
    a.start();
    b.start();
    c.start();
    expect(clock.due()).toHaveLength(1);
    clock.advanceBy(999);
    expect(fired).toEqual([]);
    clock.advanceBy(1);
    expect(fired).toEqual(['a']);
    expect(a.timedOut).toBe(true);
    c.stop(); // ended in time: never fires
    clock.advanceBy(1_999);
    expect(fired).toEqual(['a']);
    clock.advanceBy(1);
    expect(fired).toEqual(['a', 'b']);
    expect(c.timedOut).toBe(false);
    expect(clock.due()).toEqual([]);
  });

  it('leaves no timer once every turn has ended, so nothing keeps the process awake', () => {
    const clock = new ManualTimers();
    const timers = [1, 2, 3].map(() => new TurnTimer(60_000, () => undefined, clock));
    for (const t of timers) t.start();
    for (const t of timers) t.stop();
    expect(clock.due()).toEqual([]);
  });

  it('a lost timer does not hold back the deadlines after it', () => {
    // A clock that drops the first timer it is given, as a test's fake timers do when they are restored.
    const clock = new ManualTimers();
    let lost = false;
    const losing = {
      now: () => clock.now(),
      setTimeout: (run: () => void, ms: number) => (lost ? clock.setTimeout(run, ms) : ((lost = true), -1)),
      clearTimeout: (handle: unknown) => clock.clearTimeout(handle),
    };
    const fired: string[] = [];
    new TurnTimer(1_000, () => fired.push('first'), losing).start();
    clock.advanceBy(2_000);
    expect(fired).toEqual([]);
    new TurnTimer(300, () => fired.push('second'), losing).start();
    clock.advanceBy(0);
    expect(fired).toEqual(['first']);
    clock.advanceBy(300);
    expect(fired).toEqual(['first', 'second']);
  });

  it("each dispatcher's real clock has its own deadlines: a timer lost in one never holds back another", () => {
    // A bridge whose turn was timed while a test had faked the global timers: restoring them loses its timer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    new TurnTimer(1_000, () => undefined, ownRealClock()).start();
    vi.useRealTimers();
    // A later bridge's turn, with a longer budget, on its own clock.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      let fired = false;
      new TurnTimer(5_000, () => (fired = true), ownRealClock()).start();
      vi.advanceTimersByTime(5_000);
      expect(fired).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not count the time a turn is paused on a person', () => {
    const clock = new ManualTimers();
    let fired = false;
    const timer = new TurnTimer(1_000, () => (fired = true), clock);
    timer.start();
    clock.advanceBy(600);
    timer.pause();
    clock.advanceBy(10_000);
    expect(fired).toBe(false);
    timer.resume();
    clock.advanceBy(399);
    expect(fired).toBe(false);
    clock.advanceBy(1);
    expect(fired).toBe(true);
  });
});

describe('lazy abort', () => {
  it('makes no signal until asked, and a signal asked for late is already aborted', () => {
    const abort = new LazyAbort();
    const heard: string[] = [];
    const unfollow = abort.onAbort(() => heard.push('turn'));
    abort.onAbort(() => heard.push('other'));
    unfollow();
    abort.abort();
    abort.abort();
    expect(heard).toEqual(['other']);
    expect(abort.aborted).toBe(true);
    expect(abort.signal.aborted).toBe(true);
  });

  it('aborts a signal handed out before the abort, and runs a hook added after it at once', () => {
    const abort = new LazyAbort();
    const signal = abort.signal;
    let events = 0;
    signal.addEventListener('abort', () => (events += 1));
    abort.abort();
    expect(signal.aborted).toBe(true);
    expect(events).toBe(1);
    let late = false;
    abort.onAbort(() => (late = true));
    expect(late).toBe(true);
  });
});
