/**
 * The activity view over real HTTP (docs/contract.md#activity, #the-event-feed): `activity/snapshot`
 * returns every task with the feed cursor it is current at; `GET /events?since=` (or `Last-Event-ID`)
 * then delivers exactly the events after it, each with its cursor as the SSE id, or `reset` when the
 * cursor is not of this run. `activity/task` lists a task's children (sends naming it as parentTaskId).
 */
import { createParser } from 'eventsource-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { ActivityDetailSchema, ActivitySnapshotSchema } from '../../main/schema/activity.js';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';

const TEST_MS = 120_000;

let tb: TestBridge | undefined;
afterEach(async () => {
  await tb?.cleanup();
  tb = undefined;
});

interface Frame {
  id: string | undefined;
  event: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data: any;
}

/** GET /events as a reader resuming at a cursor; `read` returns once `until` holds for a frame. */
async function follow(b: TestBridge, query: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = await fetch(`${b.url}/events${query}`, {
    headers: { authorization: `Bearer ${b.token}`, ...headers },
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const frames: Frame[] = [];
  const parser = createParser({
    onEvent: (e) => frames.push({ id: e.id, event: e.event, data: JSON.parse(e.data) }),
  });
  const decoder = new TextDecoder();
  return {
    async read(until: (f: Frame) => boolean): Promise<Frame[]> {
      for (let seen = 0; ;) {
        for (; seen < frames.length; seen += 1) if (until(frames[seen]!)) return [...frames];
        const chunk = await reader.read();
        if (chunk.done) return [...frames];
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
    },
    close: () => abort.abort(),
  };
}

async function send(b: TestBridge, agent: string, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await b.rpc('message/send', { agent, text, ...extra });
  expect(reply.error).toBeUndefined();
  expect(reply.result.status.state).toBe('completed');
  return reply.result.id as string;
}

const finalOf = (taskId: string) => (f: Frame) => f.data?.event?.taskId === taskId && f.data.event.final === true;

describe('activity over HTTP', () => {
  it(
    'snapshot then events from its cursor: every event after it once, in order, none before it',
    async () => {
      tb = await startTestBridge({ agents: { echo: echoAgent(), other: echoAgent() } });
      const first = await send(tb, 'echo', 'first brief line\nmore of the brief');

      const snap = ActivitySnapshotSchema.parse((await tb.rpc('activity/snapshot', {})).result);
      expect(snap.rows.map((r) => r.taskId)).toEqual([first]);
      expect(snap.rows[0]).toMatchObject({
        agent: 'echo',
        caller: 'person',
        chain: ['echo'],
        brief: 'first brief line',
      });
      expect(snap.rows[0]!.state).toBe('completed');
      expect(snap.rows[0]!.lastLine).toBeTruthy();
      expect(snap.summary).toEqual({ running: 0, waiting: 0, needsYou: 0, finished: 1 });
      expect(snap.agents.map((a) => a.agent).sort()).toEqual(['echo', 'other']);
      expect(snap.truncated).toBe(false);

      // Events published while nobody follows: the resuming reader gets them from the replay.
      const second = await send(tb, 'other', 'second');
      const resumed = await follow(tb, `?since=${encodeURIComponent(snap.cursor)}`);
      const frames = await resumed.read(finalOf(second));
      resumed.close();
      expect(frames.every((f) => f.data.event.taskId === second)).toBe(true);
      // A new task is on the feed from its creation (a queued task has no event of its own until it starts).
      expect(frames[0]!.data).toMatchObject({ state: 'submitted', event: { seq: 0, metadata: { event: 'created' } } });
      const [run, seq] = snap.cursor.split(':');
      expect(frames.map((f) => f.id)).toEqual(frames.map((_f, i) => `${run}:${Number(seq) + 1 + i}`));
      expect(frames.map((f) => f.event)).toEqual(frames.map((f) => f.data.event.kind));

      // Last-Event-ID resumes the same way (what EventSource sends on reconnect), mid-way.
      const middle = frames[1]!.id!;
      const again = await follow(tb, '', { 'last-event-id': middle });
      const rest = await again.read(finalOf(second));
      again.close();
      expect(rest.map((f) => f.id)).toEqual(frames.slice(2).map((f) => f.id));

      // Live events continue after the replay without a gap.
      const live = await follow(tb, `?since=${encodeURIComponent(frames.at(-1)!.id!)}`);
      const third = await send(tb, 'echo', 'third');
      const after = await live.read(finalOf(third));
      live.close();
      expect(after.length).toBeGreaterThan(0);
      expect(Number(after[0]!.id!.split(':')[1])).toBe(Number(frames.at(-1)!.id!.split(':')[1]) + 1);
      expect(after.every((f) => f.data.event.taskId === third)).toBe(true);
    },
    TEST_MS,
  );

  it(
    'a cursor of another bridge run (or not a cursor) gets a reset event naming the current cursor',
    async () => {
      tb = await startTestBridge();
      await send(tb, 'echo', 'one');
      const snap = ActivitySnapshotSchema.parse((await tb.rpc('activity/snapshot', {})).result);
      for (const stale of ['0000dead:1', 'not a cursor']) {
        const reader = await follow(tb, `?since=${encodeURIComponent(stale)}`);
        const [reset] = await reader.read((f) => f.event === 'reset');
        reader.close();
        expect(reset).toMatchObject({ event: 'reset', id: snap.cursor, data: { cursor: snap.cursor } });
        expect(reset!.data.reason).toMatch(/another bridge run|not a cursor/);
      }
    },
    TEST_MS,
  );

  it(
    'activity/task: the task as tasks/get returns it, and the tasks it delegated as children',
    async () => {
      tb = await startTestBridge({ agents: { echo: echoAgent(), other: echoAgent() } });
      const parent = await send(tb, 'echo', 'the parent');
      const child = await send(tb, 'other', 'the child', { parentTaskId: parent, callerAgent: 'echo' });
      const detail = ActivityDetailSchema.parse((await tb.rpc('activity/task', { taskId: parent })).result);
      const got = (await tb.rpc('tasks/get', { id: parent })).result;
      expect(detail.task).toEqual(got);
      expect(detail.children.map((c) => c.taskId)).toEqual([child]);
      expect(detail.children[0]).toMatchObject({ parentTaskId: parent, chain: ['echo', 'other'] });

      const missing = await tb.rpc('activity/task', { taskId: 'no-such-task' });
      expect(missing.error?.message).toContain('no task with id');
      const bad = await tb.rpc('activity/snapshot', { limit: 0 });
      expect(bad.error?.code).toBe(-32602);
      expect(bad.error?.message).toContain('limit must be');
    },
    TEST_MS,
  );
});
