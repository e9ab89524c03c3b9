import type { Pending } from '../domain/pending.js';
import type { LiveTask } from './live-task.js';
import { recordQuestion } from './question-log.js';

/**
 * Expiry and reminder for questions that have no live agent-side request behind them: decisions (the
 * turn has ended) and anything recovered after a restart. Expiry fails the task; it never allows.
 */
export class PendingClock {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>[]>();

  schedule(live: LiveTask, pending: Pending): void {
    this.clear(live.id);
    const ttl = Math.max(0, Date.parse(pending.expiresAt) - Date.now());
    const elapsed = Date.now() - Date.parse(pending.createdAt);
    const reminderIn = Math.max(0, ((ttl + elapsed) * 2) / 3 - elapsed);
    const timers = [setTimeout(() => this.expire(live, pending), ttl)];
    if (reminderIn < ttl)
      timers.push(
        setTimeout(() => live.announce({ event: 'pending-reminder', pendingKind: pending.kind }), reminderIn),
      );
    this.timers.set(live.id, timers);
  }

  clear(taskId: string): void {
    for (const t of this.timers.get(taskId) ?? []) clearTimeout(t);
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
