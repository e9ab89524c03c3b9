/**
 * History pruning (`history: {max_age_days, max_tasks}`): finished tasks are deleted when older than the
 * age limit or beyond the newest `max_tasks`, at startup, every hour, and after every tenth of `max_tasks`
 * new tasks (at least 100): an hour of a busy bridge is many times `max_tasks`, and the data dir must stay
 * within what the settings promise (docs/benchmark.md#what-the-bridge-remembers). A task that is still running or
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
  /** A task was created: every `pruneEvery(maxTasks)` of them, a prune runs (synchronously, now). */
  noteCreated(): void;
  stop(): void;
}

const DAY_MS = 24 * 3600 * 1000;

/** How many new tasks between two prunes: the store holds at most `maxTasks` + this many finished tasks. */
export function pruneEvery(maxTasks: number): number {
  return Math.max(100, Math.ceil(maxTasks / 10));
}

/** Prunes once at once, then every hour until stopped. The timer never keeps the process alive. */
export function startHistoryPruning(opts: HistoryPruningOptions): HistoryPruning {
  const now = opts.now ?? Date.now;
  const every = pruneEvery(opts.maxTasks);
  let created = 0;
  const runOnce = (): number => {
    created = 0;
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
  return {
    runOnce,
    noteCreated: () => {
      created += 1;
      if (created >= every) runOnce();
    },
    stop: () => clearInterval(timer),
  };
}
