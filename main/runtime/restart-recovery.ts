/**
 * After a restart: tasks that were running have lost their process and fail (retryable); questions
 * stay readable and keep their expiry. A permission whose agent can re-attach (its question carries the
 * backend's reattach handle) stays answerable, as a new turn; one whose agent-side request died with the
 * process and cannot be taken back fails too, with the reason, so `pending` never offers a question whose
 * answer could only be refused. A decision can still be answered, as a new turn.
 */
import type { TaskStore } from '../ports.js';
import type { LiveTasks } from './live-tasks.js';
import type { PendingClock } from './pending-clock.js';

// A replay of the old messageId returns this failed task; a new id runs the work again.
const RESTART_REASON = 'the bridge restarted while this task was running; re-send it under a new messageId';

function lostPermissionReason(title: string): string {
  return `the bridge restarted while this task waited for permission (${title}), and the agent cannot take its request back up; re-send it under a new messageId`;
}

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
  let lost = 0;
  const waiting = deps.store.tasksInStates(['input-required']);
  for (const task of waiting) {
    const pending = task.metadata.pending;
    if (!pending) continue;
    const live = deps.live.revive(task);
    if (pending.kind === 'permission' && !pending.reattach) {
      lost += 1;
      live.patchMetadata({ pending: undefined, retryable: true });
      live.setStatus('failed', lostPermissionReason(pending.toolCall.title));
      continue;
    }
    deps.clock.schedule(live, pending);
  }
  return { failed: running.length + lost, waiting: waiting.length - lost };
}
