/**
 * History pruning (`history: {max_age_days, max_tasks}`): finished tasks are deleted when older than the
 * age limit or beyond the newest `max_tasks`, at startup and every hour. A task that is still running or
 * waiting for an answer is never deleted, whatever its age: someone may still answer or read it.
 *
 * A pruned task takes its idempotency key with it, so a messageId reused after pruning starts new work.
 */
import { TERMINAL_STATES } from '../domain/task.js';

export interface PruneOptions {
  /** Finished tasks whose status last changed before this instant (ISO-8601 UTC) are deleted. */
  olderThan?: string;
  /** When more tasks than this are stored, the oldest finished ones are deleted down to it. */
  maxTasks?: number;
}

export interface PrunableStore {
  /** Deletes finished tasks (and their events) by the options, in one transaction; returns how many. */
  prune(opts: PruneOptions): number;
}

/** The states a prune may delete: only these, ever. */
export const PRUNABLE_STATES: readonly string[] = TERMINAL_STATES;

const PRUNE_EVERY_MS = 3600_000;

export interface HistoryPruningOptions {
  store: PrunableStore;
  maxAgeDays: number;
  maxTasks: number;
  now?: () => number;
  onPruned?: (deleted: number) => void;
  onError?: (err: unknown) => void;
}

export interface HistoryPruning {
  /** Prunes now; returns how many tasks were deleted (0 after an error, which goes to onError). */
  runOnce(): number;
  stop(): void;
}

const DAY_MS = 24 * 3600 * 1000;

/** Prunes once at once, then every hour until stopped. The timer never keeps the process alive. */
export function startHistoryPruning(opts: HistoryPruningOptions): HistoryPruning {
  const now = opts.now ?? Date.now;
  const runOnce = (): number => {
    try {
      const deleted = opts.store.prune({
        olderThan: new Date(now() - opts.maxAgeDays * DAY_MS).toISOString(),
        maxTasks: opts.maxTasks,
      });
      if (deleted > 0) opts.onPruned?.(deleted);
      return deleted;
    } catch (err) {
      opts.onError?.(err);
      return 0;
    }
  };
  runOnce();
  const timer = setInterval(runOnce, PRUNE_EVERY_MS);
  timer.unref();
  return { runOnce, stop: () => clearInterval(timer) };
}
