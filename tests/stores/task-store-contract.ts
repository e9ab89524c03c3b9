/**
 * The behaviour every TaskStore must have, run against each adapter. Each test gets a fresh, empty store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BridgeError } from '../../main/domain/errors.js';
import type { Task, TaskState } from '../../main/domain/task.js';
import type { TaskQuery, TaskStore } from '../../main/ports.js';
import { chunk, firstEvents, makeTask, moved, textArtifact } from './make-task.js';

export type StoreUnderTest = TaskStore & { tasksInStates(states: TaskState[]): Task[] };

/**
 * Group commit is the one durability model, so every store has it and the runtime never asks. Checked by
 * tsc (`npm run check`): should the port make `afterCommit`/`flush` optional again, this stops compiling.
 */
export function groupCommitIsRequired(withoutIt: Omit<TaskStore, 'afterCommit' | 'flush'>): TaskStore {
  // @ts-expect-error a store without afterCommit and flush is not a TaskStore
  return withoutIt;
}

export function describeTaskStoreContract(
  name: string,
  makeStore: () => { store: StoreUnderTest; cleanup: () => void },
): void {
  describe(`${name} (TaskStore contract)`, () => {
    let store: StoreUnderTest;
    let cleanup: () => void;
    beforeEach(() => {
      ({ store, cleanup } = makeStore());
    });
    afterEach(() => cleanup());

    const add = (task: Task) => store.create(task, firstEvents(task)).stored;
    const query = (q: Partial<TaskQuery> = {}): TaskQuery => ({ pageSize: 50, includeArtifacts: true, ...q });
    const ids = (tasks: Task[]) => tasks.map((t) => t.id);
    const expectBridgeError = (fn: () => unknown, reason: string, message?: RegExp) => {
      let thrown: unknown;
      try {
        fn();
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(BridgeError);
      expect((thrown as BridgeError).reason).toBe(reason);
      if (message) expect((thrown as BridgeError).message).toMatch(message);
    };

    describe('create and get', () => {
      it('returns the stored task and the last seq of its first events', () => {
        const task = makeTask({ artifacts: [textArtifact('hello')] });
        const { stored, created } = store.create(task, firstEvents(task));
        expect(created).toBe(true);
        expect(stored).toEqual({ task, lastSeq: 2 });
        expect(store.get(task.id)).toEqual({ task, lastSeq: 2 });
      });

      it('returns undefined for an unknown id', () => {
        expect(store.get('no-such-task')).toBeUndefined();
      });

      it('refuses a second task with the same id', () => {
        const task = makeTask();
        add(task);
        expect(() => store.create({ ...task, contextId: 'other' }, [])).toThrow();
        expect(store.get(task.id)?.task.contextId).toBe(task.contextId);
      });

      it('keeps copies: changing what went in or came out does not change the store', () => {
        const task = makeTask();
        const events = firstEvents(task);
        const submitted = structuredClone(events[1]);
        const { stored } = store.create(task, events);
        task.status.state = 'failed';
        events[1].status.state = 'failed';
        stored.task.metadata.visitedAgents.push('mutant');
        const got = store.get(task.id);
        expect(got?.task.status.state).toBe('submitted');
        got!.task.history.length = 0;
        store.list(query()).tasks[0]!.contextId = 'mutant';
        store.eventsAfter(task.id, 0)[0]!.seq = 99;
        store.tasksInStates(['submitted'])[0]!.artifacts.push(textArtifact('mutant'));

        const again = store.get(task.id)!.task;
        expect(again.metadata.visitedAgents).toEqual([]);
        expect(again.history).toHaveLength(1);
        expect(again.contextId).not.toBe('mutant');
        expect(again.artifacts).toEqual([]);
        expect(store.eventsAfter(task.id, 0)).toEqual([submitted]);
      });
    });

    describe('idempotent create', () => {
      const key = (messageId: string, payloadHash = 'hash-1', scope = 'claude') => ({ scope, messageId, payloadHash });

      it('returns the first task with its payload hash and writes nothing for a replayed key', () => {
        const first = makeTask();
        expect(store.create(first, firstEvents(first), key('m-1'))).toMatchObject({
          created: true,
          payloadHash: 'hash-1',
        });
        const replay = makeTask();
        const again = store.create(replay, firstEvents(replay), key('m-1', 'hash-2'));
        expect(again).toEqual({ stored: { task: first, lastSeq: 2 }, created: false, payloadHash: 'hash-1' });
        expect(store.get(replay.id)).toBeUndefined();
        expect(store.list(query()).totalSize).toBe(1);
      });

      it('treats the same messageId sent to another agent as a new message', () => {
        const first = makeTask({ agent: 'claude' });
        const second = makeTask({ agent: 'codex' });
        store.create(first, firstEvents(first), key('m-1', 'h', 'claude'));
        const result = store.create(second, firstEvents(second), key('m-1', 'h', 'codex'));
        expect(result.created).toBe(true);
        expect(result.stored.task.id).toBe(second.id);
        expect(store.list(query()).totalSize).toBe(2);
      });

      it('never matches creates without a key', () => {
        add(makeTask());
        add(makeTask());
        expect(store.list(query()).totalSize).toBe(2);
      });
    });

    describe('commit and eventsAfter', () => {
      it('appends events in order and moves lastSeq, keeping the snapshot when none is given', () => {
        const task = makeTask();
        add(task);
        store.commit(task.id, [chunk(task, 3, 'a'), chunk(task, 4, 'b')]);
        expect(store.get(task.id)).toEqual({ task, lastSeq: 4 });
        expect(store.eventsAfter(task.id, 0).map((e) => [e.kind, e.seq])).toEqual([
          ['status-update', 2],
          ['artifact-update', 3],
          ['artifact-update', 4],
        ]);
        expect(store.eventsAfter(task.id, 3).map((e) => e.seq)).toEqual([4]);
        expect(store.eventsAfter(task.id, 4)).toEqual([]);
      });

      it('replaces the snapshot with the events, and list sees its new state and time', () => {
        const older = makeTask();
        const task = makeTask();
        const newer = makeTask();
        [older, task, newer].forEach(add);
        const { task: working, event } = moved(task, 'working', 3);
        store.commit(task.id, [event], working);
        expect(store.get(task.id)).toEqual({ task: working, lastSeq: 3 });
        expect(store.eventsAfter(task.id, 2)).toEqual([event]);
        expect(ids(store.list(query()).tasks)).toEqual([task.id, newer.id, older.id]);
        expect(ids(store.list(query({ states: ['working'] })).tasks)).toEqual([task.id]);
        expect(ids(store.list(query({ states: ['submitted'] })).tasks)).toEqual([newer.id, older.id]);
      });

      it('returns no events for an unknown task', () => {
        expect(store.eventsAfter('no-such-task', 0)).toEqual([]);
      });

      it('rejects an unknown task with task-not-found', () => {
        const task = makeTask();
        expectBridgeError(() => store.commit('no-such-task', [chunk(task, 1, 'x')]), 'task-not-found', /no-such-task/);
      });

      it('rejects a seq that does not follow the last one, writing nothing', () => {
        const task = makeTask();
        add(task);
        const { task: done, event } = moved(task, 'completed', 4);
        expect(() => store.commit(task.id, [event, chunk(task, 2, 'late')], done)).toThrow(/seq/);
        expect(store.get(task.id)).toEqual({ task, lastSeq: 2 });
        expect(store.eventsAfter(task.id, 2)).toEqual([]);
      });
    });

    describe('list', () => {
      it('orders newest status first, breaking ties by id, newest id first', () => {
        const at = '2025-06-01T00:00:00.000Z';
        const a = makeTask({ id: 'a', timestamp: at });
        const c = makeTask({ id: 'c', timestamp: at });
        const b = makeTask({ id: 'b', timestamp: at });
        const later = makeTask({ id: 'z-later', timestamp: '2025-06-01T00:00:00.001Z' });
        [a, c, later, b].forEach(add);
        expect(ids(store.list(query()).tasks)).toEqual(['z-later', 'c', 'b', 'a']);
      });

      it('pages through 250 tasks with no duplicate and no gap', () => {
        const all = Array.from({ length: 250 }, () => makeTask());
        // Runs of equal timestamps make the id tie-break cross page boundaries.
        all.forEach(
          (t, i) => (t.status.timestamp = new Date(Date.UTC(2025, 5, 1, 0, 0, Math.floor(i / 7))).toISOString()),
        );
        all.forEach(add);
        const expected = [...all]
          .sort((x, y) =>
            x.status.timestamp === y.status.timestamp
              ? x.id < y.id
                ? 1
                : -1
              : x.status.timestamp < y.status.timestamp
                ? 1
                : -1,
          )
          .map((t) => t.id);

        const seen: string[] = [];
        const sizes: number[] = [];
        let pageToken = '';
        do {
          const page = store.list(query({ pageSize: 100, pageToken }));
          expect(page.totalSize).toBe(250);
          sizes.push(page.tasks.length);
          seen.push(...ids(page.tasks));
          pageToken = page.nextPageToken;
        } while (pageToken !== '');
        expect(sizes).toEqual([100, 100, 50]);
        expect(seen).toEqual(expected);
      });

      it('gives an empty token when the page ends exactly at the last task', () => {
        Array.from({ length: 4 }, () => makeTask()).forEach(add);
        const first = store.list(query({ pageSize: 2 }));
        const second = store.list(query({ pageSize: 2, pageToken: first.nextPageToken }));
        expect(first.nextPageToken).not.toBe('');
        expect(second.tasks).toHaveLength(2);
        expect(second.nextPageToken).toBe('');
      });

      it('continues from its cursor when newer tasks arrive between pages', () => {
        const all = Array.from({ length: 5 }, () => makeTask());
        all.forEach(add);
        const first = store.list(query({ pageSize: 3 }));
        add(makeTask());
        const second = store.list(query({ pageSize: 3, pageToken: first.nextPageToken }));
        expect([...ids(first.tasks), ...ids(second.tasks)]).toEqual(ids([...all].reverse()));
        expect(second.totalSize).toBe(6);
      });

      it('filters by contextId, agent, states and updatedAfter, and counts only matches', () => {
        const t1 = makeTask({ contextId: 'ctx-a', agent: 'claude', state: 'working' });
        const t2 = makeTask({ contextId: 'ctx-a', agent: 'codex', state: 'completed' });
        const t3 = makeTask({ contextId: 'ctx-b', agent: 'claude', state: 'input-required' });
        const t4 = makeTask({ contextId: 'ctx-b', agent: 'codex', state: 'failed' });
        [t1, t2, t3, t4].forEach(add);
        const pick = (q: Partial<TaskQuery>) => {
          const page = store.list(query(q));
          expect(page.totalSize).toBe(page.tasks.length);
          return ids(page.tasks);
        };
        expect(pick({ contextId: 'ctx-a' })).toEqual([t2.id, t1.id]);
        expect(pick({ agent: 'claude' })).toEqual([t3.id, t1.id]);
        expect(pick({ states: ['input-required', 'failed'] })).toEqual([t4.id, t3.id]);
        expect(pick({ states: [] })).toEqual([t4.id, t3.id, t2.id, t1.id]);
        expect(pick({ updatedAfter: t2.status.timestamp })).toEqual([t4.id, t3.id]);
        expect(pick({ contextId: 'ctx-b', agent: 'codex', states: ['failed'] })).toEqual([t4.id]);
        expect(pick({ contextId: 'ctx-c' })).toEqual([]);
      });

      it('filters by the creating agent before the page is cut: a creator stored as agent:<name> only', () => {
        const made = (createdBy: string | undefined, agent = 'worker') => {
          const task = makeTask({ agent });
          if (createdBy !== undefined) task.metadata.createdBy = createdBy;
          add(task);
          return task.id;
        };
        const boss1 = made('agent:boss');
        const boss2 = made('agent:boss', 'codex');
        // Newer than boss's: a filter applied after the page would see none of boss's on a page of 2.
        made('person');
        made('agent:bossy');
        made('boss');
        made(undefined);
        made('agent:stranger');
        const page = store.list(query({ createdByAgent: 'boss', pageSize: 2 }));
        expect(ids(page.tasks)).toEqual([boss2, boss1]);
        expect(page.totalSize).toBe(2);
        expect(page.nextPageToken).toBe('');
        expect(ids(store.list(query({ createdByAgent: 'person' })).tasks)).toEqual([]);
        expect(ids(store.list(query({ createdByAgent: 'boss', agent: 'codex' })).tasks)).toEqual([boss2]);
      });

      it('counts all matches while returning one page', () => {
        Array.from({ length: 5 }, () => makeTask({ agent: 'codex' })).forEach(add);
        add(makeTask({ agent: 'claude' }));
        const page = store.list(query({ agent: 'codex', pageSize: 2 }));
        expect(page.tasks).toHaveLength(2);
        expect(page.totalSize).toBe(5);
      });

      it('reads updatedAfter in any ISO-8601 form, strictly after the instant', () => {
        const early = makeTask({ timestamp: '2025-03-01T10:00:00.000Z' });
        const late = makeTask({ timestamp: '2025-03-01T10:00:01.000Z' });
        [early, late].forEach(add);
        expect(ids(store.list(query({ updatedAfter: '2025-03-01T12:00:00+02:00' })).tasks)).toEqual([late.id]);
        expect(ids(store.list(query({ updatedAfter: '2025-03-01T09:59:59Z' })).tasks)).toEqual([late.id, early.id]);
        expectBridgeError(() => store.list(query({ updatedAfter: 'yesterday' })), 'invalid-params', /updatedAfter/);
      });

      it('leaves artifacts out when asked, without touching the stored task', () => {
        const task = makeTask({ artifacts: [textArtifact('a long reply')] });
        add(task);
        expect(store.list(query({ includeArtifacts: false })).tasks).toEqual([{ ...task, artifacts: [] }]);
        expect(store.list(query({ includeArtifacts: true })).tasks).toEqual([task]);
        expect(store.get(task.id)?.task.artifacts).toEqual(task.artifacts);
      });

      it('rejects a pageToken it did not issue with invalid-params', () => {
        add(makeTask());
        const forged = [
          'not a token!',
          Buffer.from('{"not":"json array').toString('base64url'),
          Buffer.from('{"updatedAt":"x","id":"y"}').toString('base64url'),
          Buffer.from('[1,2]').toString('base64url'),
        ];
        for (const pageToken of forged) {
          expectBridgeError(
            () => store.list(query({ pageToken })),
            'invalid-params',
            /pageToken is not one this bridge issued/,
          );
        }
      });

      it('treats an empty pageToken as the first page', () => {
        const task = makeTask();
        add(task);
        expect(ids(store.list(query({ pageToken: '' })).tasks)).toEqual([task.id]);
      });
    });

    describe('tasksInStates', () => {
      it('returns whole tasks in the given states, oldest status first', () => {
        const waiting = makeTask({ state: 'input-required', artifacts: [textArtifact('partial')] });
        const done = makeTask({ state: 'completed' });
        const running = makeTask({ state: 'working' });
        [waiting, done, running].forEach(add);
        expect(store.tasksInStates(['working', 'input-required'])).toEqual([waiting, running]);
        expect(store.tasksInStates([])).toEqual([]);
      });
    });

    describe('group commit (afterCommit / flush)', () => {
      const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

      it('runs each callback once, in order, after the writes made before it, by the end of the turn', async () => {
        const heard: string[] = [];
        const task = makeTask();
        add(task);
        store.afterCommit((lost) => heard.push(`created ${lost ? 'lost' : 'stored'}`));
        const { task: working, event } = moved(task, 'working', 3);
        store.commit(task.id, [event], working);
        store.afterCommit((lost) => heard.push(`working ${lost ? 'lost' : 'stored'}`));
        await nextTurn();
        expect(heard).toEqual(['created stored', 'working stored']);
        expect(store.get(task.id)).toEqual({ task: working, lastSeq: 3 });
      });

      it('runs a callback at once when nothing is waiting to be stored', () => {
        store.flush();
        const heard: boolean[] = [];
        store.afterCommit((lost) => heard.push(lost === undefined));
        expect(heard).toEqual([true]);
      });

      it('flush stores everything written so far and runs its callbacks before it returns', () => {
        const task = makeTask();
        add(task);
        let stored = false;
        store.afterCommit(() => (stored = true));
        store.flush();
        expect(stored).toBe(true);
      });

      it('a refused write changes nothing, and the other writes of its group are kept', async () => {
        const a = makeTask();
        const b = makeTask();
        add(a);
        add(b);
        expect(() => store.commit(a.id, [chunk(a, 2, 'stale seq')], a)).toThrow(/does not follow/);
        const { task: bWorking, event } = moved(b, 'working', 3);
        store.commit(b.id, [event], bWorking);
        await nextTurn();
        expect(store.get(a.id)).toEqual({ task: a, lastSeq: 2 });
        expect(store.get(b.id)).toEqual({ task: bWorking, lastSeq: 3 });
        expect(store.eventsAfter(b.id, 2)).toEqual([event]);
      });

      it('keeps what was committed, not what the caller changed afterwards', () => {
        const task = makeTask();
        add(task);
        const { task: working, event } = moved(task, 'working', 3);
        store.commit(task.id, [event], working);
        working.status.state = 'failed';
        event.status.state = 'failed';
        expect(store.get(task.id)?.task.status.state).toBe('working');
        expect(store.eventsAfter(task.id, 2)[0]).toMatchObject({ status: { state: 'working' } });
      });

      it('commit returns the snapshot as the JSON text the store keeps, once, and nothing without one', () => {
        const task = makeTask();
        add(task);
        const { task: working, event } = moved(task, 'working', 3);
        const json = store.commit(task.id, [event], working);
        working.status.state = 'failed'; // the text is the task as of the commit
        expect(json).toBe(JSON.stringify(store.get(task.id)!.task));
        expect(JSON.parse(json!)).toMatchObject({ id: task.id, status: { state: 'working' } });
        expect(store.commit(task.id, [chunk(task, 4, 'more')])).toBeUndefined();
      });

      it("a replay finds a task created earlier in the same turn, as it is after that turn's changes", () => {
        const task = makeTask();
        const key = { scope: 'claude', messageId: 'm-same-turn', payloadHash: 'h' };
        store.create(task, firstEvents(task), key);
        const { task: working, event } = moved(task, 'working', 3);
        store.commit(task.id, [event], working);
        const again = store.create(makeTask(), [], key);
        expect(again).toEqual({ stored: { task: working, lastSeq: 3 }, created: false, payloadHash: 'h' });
      });
    });

    it('can be closed twice', () => {
      store.close();
      expect(() => store.close()).not.toThrow();
    });
  });
}
