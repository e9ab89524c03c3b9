/**
 * v1 §3.1.4 ListTasks: cursor pagination, filters, includeArtifacts, historyLength, newest first,
 * pageSize bounds, scoping to the endpoint's agent. Backed by the real SQLite store.
 *
 * Bulk tasks are made cheaply and for real: a send whose visitedAgents already holds the target is
 * stored as a `rejected` task by the loop guard (docs/contract.md#sending-a-message), with no process started.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { call, userMessage, type Wire } from './wire.js';

let tb: TestBridge;
const BULK = 120;
const CONTEXT = `list-ctx-${crypto.randomUUID()}`;
const completed: Wire[] = [];

const list = (params: Record<string, unknown>, path = '/') => call(tb, '1.0', 'ListTasks', params, { path });

async function rejectedTask(i: number): Promise<void> {
  const res = await call(
    tb,
    '1.0',
    'SendMessage',
    { message: userMessage('1.0', `bulk ${i}`), metadata: { visitedAgents: ['echo'] } },
    { path: '/agents/echo' },
  );
  expect(res.result.task.status.state).toBe('TASK_STATE_REJECTED');
}

beforeAll(async () => {
  tb = await startTestBridge({ agents: { echo: echoAgent(), other: echoAgent() }, isolatedEnv: true });
  for (let i = 0; i < BULK; i++) await rejectedTask(i);
  for (const text of ['first', 'second', 'third']) {
    const res = await call(
      tb,
      '1.0',
      'SendMessage',
      { message: userMessage('1.0', text, { contextId: CONTEXT }) },
      { path: '/agents/echo' },
    );
    completed.push(res.result.task);
  }
  await call(tb, '1.0', 'SendMessage', { message: userMessage('1.0', 'elsewhere') }, { path: '/agents/other' });
});
afterAll(async () => {
  await tb.cleanup();
});

async function allPages(params: Record<string, unknown>): Promise<{ pages: Wire[]; tasks: Wire[] }> {
  const pages: Wire[] = [];
  let pageToken: string | undefined;
  do {
    const res = await list({ ...params, ...(pageToken ? { pageToken } : {}) });
    expect(res.error).toBeUndefined();
    pages.push(res.result);
    pageToken = res.result.nextPageToken;
  } while (pageToken);
  return { pages, tasks: pages.flatMap((p) => p.tasks) };
}

const timestamps = (tasks: Wire[]) => tasks.map((t) => Date.parse(t.status.timestamp));

describe('v1 §3.1.4 ListTasks', () => {
  it('v1 §3.1.4 ListTasks: pageSize 50 over 124 tasks pages through every task once — no duplicates, no gaps', async () => {
    const { pages, tasks } = await allPages({ pageSize: 50 });
    const total = BULK + completed.length + 1;
    expect(pages.map((p) => p.tasks.length)).toEqual([50, 50, total - 100]);
    expect(pages.every((p) => p.totalSize === total && p.pageSize === 50)).toBe(true);
    expect(pages.at(-1).nextPageToken).toBe('');
    expect(new Set(tasks.map((t) => t.id)).size).toBe(total);
  });

  it('v1 §3.1.4 ListTasks: newest first — sorted by status timestamp, descending, across pages', async () => {
    const { tasks } = await allPages({ pageSize: 7 });
    const ts = timestamps(tasks);
    expect(ts).toEqual([...ts].sort((a, b) => b - a));
    expect(tasks[0].metadata.agent).toBe('other'); // the last one created
  });

  it('v1 §3.1.4 ListTasks: tasks created between pages cause neither duplicates nor gaps in what was listed', async () => {
    const first = await list({ pageSize: 50 });
    for (let i = 0; i < 5; i++) await rejectedTask(1000 + i);
    const rest = await allPages({ pageSize: 50, pageToken: first.result.nextPageToken });
    const ids = [...first.result.tasks, ...rest.tasks].map((t: Wire) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(first.result.totalSize);
  });

  it('v1 §3.1.4 ListTasks: pageSize defaults to 50 and must be 1–100 (-32602 otherwise)', async () => {
    const byDefault = await list({});
    expect(byDefault.result.pageSize).toBe(50);
    expect(byDefault.result.tasks).toHaveLength(50);
    expect((await list({ pageSize: 100 })).result.tasks).toHaveLength(100);
    for (const pageSize of [0, 101, -5, 2.5]) {
      const res = await list({ pageSize });
      expect(res.error?.code, String(pageSize)).toBe(-32602);
      expect(res.error?.message).toContain('pageSize');
    }
  });

  it('v1 §3.1.4 ListTasks: a pageToken the bridge did not issue is -32602', async () => {
    expect((await list({ pageToken: 'not-a-token' })).error?.code).toBe(-32602);
  });

  it('v1 §3.1.4 ListTasks: contextId filter returns only that context', async () => {
    const res = await list({ contextId: CONTEXT });
    expect(res.result.tasks.map((t: Wire) => t.id).sort()).toEqual(completed.map((t) => t.id).sort());
    expect(res.result.totalSize).toBe(3);
    expect(res.result.nextPageToken).toBe('');
  });

  it('v1 §3.1.4 ListTasks: status filter takes a TASK_STATE_* name', async () => {
    const res = await list({ status: 'TASK_STATE_COMPLETED', pageSize: 100 });
    expect(res.result.tasks.length).toBe(completed.length + 1);
    expect(res.result.tasks.every((t: Wire) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    expect((await list({ status: 'completed' })).error?.code).toBe(-32602);
  });

  it('v1 §3.1.4 ListTasks: statusTimestampAfter keeps tasks updated at or after the time', async () => {
    const since = completed[1].status.timestamp as string;
    const res = await list({ statusTimestampAfter: since, pageSize: 100 });
    expect(res.result.tasks.length).toBeGreaterThanOrEqual(2);
    expect(timestamps(res.result.tasks).every((t) => t >= Date.parse(since))).toBe(true);
    expect(res.result.tasks.map((t: Wire) => t.id)).toContain(completed[2].id);
    expect(res.result.tasks.map((t: Wire) => t.id)).not.toContain(completed[0].id);
    expect((await list({ statusTimestampAfter: 'yesterday' })).error?.code).toBe(-32602);
  });

  it('v1 §3.1.4 ListTasks: without includeArtifacts the artifacts member is absent; with it, present', async () => {
    const without = await list({ contextId: CONTEXT });
    for (const t of without.result.tasks) expect(t).not.toHaveProperty('artifacts');
    const withArtifacts = await list({ contextId: CONTEXT, includeArtifacts: true });
    for (const t of withArtifacts.result.tasks) expect(JSON.stringify(t.artifacts)).toContain('echo: ');
  });

  it('v1 §3.1.4 ListTasks: historyLength 0 omits history, 1 keeps the newest message, negative is -32602', async () => {
    const none = await list({ contextId: CONTEXT, historyLength: 0 });
    for (const t of none.result.tasks) expect(t).not.toHaveProperty('history');
    const one = await list({ contextId: CONTEXT, historyLength: 1 });
    for (const t of one.result.tasks) expect(t.history).toHaveLength(1);
    expect((await list({ historyLength: -1 })).error?.code).toBe(-32602);
  });

  it("v1 §3.1.4 ListTasks: an agent's endpoint lists only that agent's tasks", async () => {
    const res = await list({ pageSize: 100 }, '/agents/other');
    expect(res.result.totalSize).toBe(1);
    expect(res.result.tasks[0].metadata.agent).toBe('other');
  });
});
