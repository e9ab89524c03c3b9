/**
 * After a restart: tasks that were running have lost their process and fail (retryable); questions
 * stay readable and keep their expiry. A permission's agent-side request is gone (answering says so,
 * unless the agent can re-attach); a decision can still be answered, as a new turn.
 */
import type { TaskStore } from '../ports.js';
import type { LiveTasks } from './live-tasks.js';
import type { PendingClock } from './pending-clock.js';

// A replay of the old messageId returns this failed task; a new id runs the work again.
const RESTART_REASON = 'the bridge restarted while this task was running; re-send it under a new messageId';

export function recoverAfterRestart(deps: { store: TaskStore; live: LiveTasks; clock: PendingClock }): {
  failed: number;
  waiting: number;
} {
  const running = deps.store.tasksInStates(['submitted', 'working']);
  for (const task of running) {
    const live = deps.live.revive(task);
    live.patchMetadata({ retryable: true });
    live.setStatus('failed', RESTART_REASON);
  }
  const waiting = deps.store.tasksInStates(['input-required']);
  for (const task of waiting) {
    const pending = task.metadata.pending;
    if (pending) deps.clock.schedule(deps.live.revive(task), pending);
  }
  return { failed: running.length, waiting: waiting.length };
}
