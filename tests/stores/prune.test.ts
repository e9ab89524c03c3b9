/**
 * `prune` on both stores (history: max_age_days / max_tasks): only finished tasks go, with their events
 * and idempotency keys; running and waiting tasks stay whatever their age.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TASK_STATES, type TaskState } from '../../main/domain/task.js';
import type { TaskStore } from '../../main/ports.js';
import { startHistoryPruning, type PrunableStore } from '../../main/stores/history-pruning.js';
import { InMemoryTaskStore } from '../../main/stores/memory.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { chunk, firstEvents, makeTask } from './make-task.js';

type Store = TaskStore & PrunableStore;

const adapters: [string, () => { store: Store; cleanup: () => void }][] = [
  ['InMemoryTaskStore', () => ({ store: new InMemoryTaskStore(), cleanup: () => undefined })],
  [
    'SqliteTaskStore',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'contactor-prune-'));
      const store = new SqliteTaskStore({ file: join(dir, 'tasks.db') });
      return { store, cleanup: () => (store.close(), rmSync(dir, { recursive: true, force: true })) };
    },
  ],
];

const DAY = 24 * 3600 * 1000;
const NOW = Date.parse('2025-06-01T00:00:00.000Z');
const daysAgo = (n: number, ms = 0) => new Date(NOW - n * DAY + ms).toISOString();

for (const [name, make] of adapters) {
  describe(`${name}.prune`, () => {
    let store: Store;
    let cleanup: () => void;
    beforeEach(() => ({ store, cleanup } = make()));
    afterEach(() => cleanup());

    const add = (state: TaskState, timestamp: string, messageId?: string) => {
      const task = makeTask({ state, timestamp });
      store.create(task, firstEvents(task), messageId ? { scope: 'claude', messageId, payloadHash: 'h' } : undefined);
      store.commit(task.id, [chunk(task, 3, 'reply')]);
      return task;
    };
    const remaining = () =>
      store
        .list({ pageSize: 1000, includeArtifacts: false })
        .tasks.map((t) => t.id)
        .sort();

    it('deletes finished tasks older than the cut, with their events, and never an unfinished one', () => {
      const old = Object.fromEntries(TASK_STATES.map((s) => [s, add(s, daysAgo(100))]));
      const recent = add('completed', daysAgo(1));
      const deleted = store.prune({ olderThan: daysAgo(90) });
      expect(deleted).toBe(4);
      const kept = ['submitted', 'working', 'input-required', 'auth-required'].map((s) => old[s]!.id);
      expect(remaining()).toEqual([...kept, recent.id].sort());
      expect(store.get(old.completed!.id)).toBeUndefined();
      expect(store.eventsAfter(old.failed!.id, 0)).toEqual([]);
      expect(store.eventsAfter(old.working!.id, 0).map((e) => e.seq)).toEqual([2, 3]);
    });

    it('keeps at most maxTasks, deleting the oldest finished ones first', () => {
      const waiting = add('input-required', daysAgo(50));
      const done = [10, 9, 8, 7, 6].map((d) => add('completed', daysAgo(d)));
      expect(store.prune({ maxTasks: 3 })).toBe(3);
      expect(remaining()).toEqual([waiting.id, done[3]!.id, done[4]!.id].sort());
      expect(store.prune({ maxTasks: 3 })).toBe(0);
    });

    it('lets the unfinished tasks exceed maxTasks rather than delete them', () => {
      const open = [1, 2, 3].map((d) => add('working', daysAgo(d)));
      add('canceled', daysAgo(0));
      expect(store.prune({ maxTasks: 1 })).toBe(1);
      expect(remaining()).toEqual(open.map((t) => t.id).sort());
    });

    it('forgets the idempotency key of a pruned task, so its messageId starts new work', () => {
      add('completed', daysAgo(100), 'm-old');
      store.prune({ olderThan: daysAgo(90) });
      const again = makeTask();
      expect(
        store.create(again, firstEvents(again), { scope: 'claude', messageId: 'm-old', payloadHash: 'h2' }).created,
      ).toBe(true);
    });

    it('is run at once and on its interval by startHistoryPruning', () => {
      add('completed', daysAgo(100));
      add('completed', daysAgo(1));
      const pruned: number[] = [];
      const pruning = startHistoryPruning({
        store,
        maxAgeDays: 90,
        maxTasks: 1000,
        now: () => NOW,
        onPruned: (n) => pruned.push(n),
      });
      try {
        expect(pruned).toEqual([1]);
        expect(remaining()).toHaveLength(1);
        expect(pruning.runOnce()).toBe(0);
      } finally {
        pruning.stop();
      }
    });
  });
}

describe('startHistoryPruning', () => {
  it('reports a failing prune instead of throwing', () => {
    const errors: unknown[] = [];
    const failing: PrunableStore = {
      prune: () => {
        throw new Error('database is closed');
      },
    };
    const pruning = startHistoryPruning({ store: failing, maxAgeDays: 1, maxTasks: 1, onError: (e) => errors.push(e) });
    pruning.stop();
    expect(errors).toHaveLength(1);
  });
});

describe('pruning keeps up with a busy bridge', () => {
  it('prunes again after every tenth of maxTasks new tasks (at least 100), not only hourly', () => {
    const runs = (maxTasks: number, created: number): number => {
      let prunes = 0;
      const counting: PrunableStore = {
        prune: () => {
          prunes += 1;
          return 0;
        },
      };
      const pruning = startHistoryPruning({ store: counting, maxAgeDays: 90, maxTasks });
      try {
        for (let i = 0; i < created; i++) pruning.noteCreated();
      } finally {
        pruning.stop();
      }
      return prunes;
    };
    // [maxTasks, tasks created, prunes: the one at start, then one per pruneEvery(maxTasks) tasks]
    const table: [number, number, number][] = [
      [10_000, 999, 1],
      [10_000, 1_000, 2],
      [10_000, 20_000, 21],
      [500, 99, 1],
      [500, 100, 2],
      [500, 1_000, 11],
      [1, 250, 3],
    ];
    expect(table.map(([max, created]) => [max, created, runs(max, created)])).toEqual(table);
  });

  it('a manual runOnce restarts the count', () => {
    let prunes = 0;
    const pruning = startHistoryPruning({ store: { prune: () => ((prunes += 1), 0) }, maxAgeDays: 90, maxTasks: 1000 });
    for (let i = 0; i < 60; i++) pruning.noteCreated();
    pruning.runOnce();
    for (let i = 0; i < 60; i++) pruning.noteCreated();
    pruning.stop();
    expect(prunes).toBe(2); // at start and the manual one: 60 + 60 never reached 100 in one stretch
  });
});
