/**
 * Every path that looks a task up answers TaskNotFound (-32001) with "not found" in its message, in both
 * protocol versions: A2A clients and the v0.3 conformance kit (a2a-tck 0.3.x,
 * tests/mandatory/jsonrpc/test_get_task.py and friends) match on those words, not only on the code.
 * Push notification configs are not offered at all, so their methods answer -32003 for any task.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { call, openStream, userMessage, type Version } from './wire.js';

let tb: TestBridge;
beforeAll(async () => {
  tb = await startTestBridge({ isolatedEnv: true });
});
afterAll(() => tb?.cleanup());

const MISSING = 'no-such-task-7f3a';
const V1_REASON = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND' };

function expectNotFound(version: Version, error: { code: number; message: string; data?: unknown } | undefined) {
  expect(error?.code).toBe(-32001);
  expect(error?.message).toMatch(/not found/i);
  expect(error?.message).toContain(MISSING);
  if (version === '1.0') expect(error?.data).toEqual([expect.objectContaining(V1_REASON)]);
}

describe.each([
  {
    version: '0.3' as const,
    get: 'tasks/get',
    cancel: 'tasks/cancel',
    subscribe: 'tasks/resubscribe',
    send: 'message/send',
  },
  {
    version: '1.0' as const,
    get: 'GetTask',
    cancel: 'CancelTask',
    subscribe: 'SubscribeToTask',
    send: 'SendMessage',
  },
])('A2A $version: a task that does not exist', (m) => {
  it(`${m.get} and ${m.cancel} say "task not found"`, async () => {
    for (const method of [m.get, m.cancel]) {
      for (const path of ['/', '/agents/echo']) {
        expectNotFound(m.version, (await call(tb, m.version, method, { id: MISSING }, { path })).error);
      }
    }
  });

  it(`${m.subscribe} says "task not found"`, async () => {
    const stream = await openStream(tb, { version: m.version, method: m.subscribe, params: { id: MISSING } });
    const error = stream.error ?? (await stream.next())?.data.error;
    stream.close();
    expectNotFound(m.version, error);
  });

  it(`${m.send} continuing a task id that does not exist says "task not found"`, async () => {
    const message = userMessage(m.version, 'follow-up', { taskId: MISSING });
    expectNotFound(m.version, (await call(tb, m.version, m.send, { message }, { path: '/agents/echo' })).error);
  });

  it('tasks/answer says "task not found"', async () => {
    const res = await call(tb, m.version, 'tasks/answer', { taskId: MISSING, answer: 'yes' });
    expectNotFound(m.version, res.error);
  });
});

describe('push notification configs (not offered: capabilities.pushNotifications is false)', () => {
  it.each([
    ['0.3', 'tasks/pushNotificationConfig/get', { id: MISSING }],
    ['1.0', 'GetTaskPushNotificationConfig', { taskId: MISSING, id: 'c1' }],
  ] as const)('%s %s answers -32003 for any task, never a TaskNotFound', async (version, method, params) => {
    const res = await call(tb, version, method, params);
    expect(res.error?.code).toBe(-32003);
  });
});
