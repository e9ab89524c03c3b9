import type { Pending } from '../domain/pending.js';
import type { LiveTask } from './live-task.js';
import { recordQuestion } from './question-log.js';
import { REAL_TIMERS, type Timers } from './timers.js';

/**
 * Expiry and reminder for questions that have no live agent-side request behind them: decisions (the
 * turn has ended) and anything recovered after a restart. Expiry fails the task; it never allows.
 */
export class PendingClock {
  private readonly timers = new Map<string, unknown[]>();

  constructor(private readonly clock: Timers = REAL_TIMERS) {}

  schedule(live: LiveTask, pending: Pending): void {
    this.clear(live.id);
    const now = this.clock.now();
    const ttl = Math.max(0, Date.parse(pending.expiresAt) - now);
    const elapsed = now - Date.parse(pending.createdAt);
    const reminderIn = Math.max(0, ((ttl + elapsed) * 2) / 3 - elapsed);
    const timers = [this.clock.setTimeout(() => this.expire(live, pending), ttl)];
    if (reminderIn < ttl)
      timers.push(
        this.clock.setTimeout(
          () => live.announce({ event: 'pending-reminder', pendingKind: pending.kind }),
          reminderIn,
        ),
      );
    this.timers.set(live.id, timers);
  }

  clear(taskId: string): void {
    for (const t of this.timers.get(taskId) ?? []) this.clock.clearTimeout(t);
    this.timers.delete(taskId);
  }

  clearAll(): void {
    for (const id of [...this.timers.keys()]) this.clear(id);
  }

  private expire(live: LiveTask, pending: Pending): void {
    this.timers.delete(live.id);
    recordQuestion(live, {
      kind: pending.kind,
      about: pending.kind === 'decision' ? pending.question : pending.toolCall.title,
      outcome: 'expired',
      by: 'expiry',
    })();
    live.patchMetadata({ pending: undefined, answeredBy: 'expiry', retryable: true });
    const what = pending.kind === 'decision' ? 'decision' : 'permission request';
    live.setStatus(
      'failed',
      `nobody answered the ${what} before it expired at ${pending.expiresAt}; re-send the task to try again`,
    );
  }
}
