/**
 * Version negotiation (v1 §3.6.2), error shapes (v1 §3.3.2 / §5.4 with google.rpc.ErrorInfo, v0.3 §8)
 * and capability validation (v1 §3.3.4, v0.3 §7.5–7.10): undeclared features fail cleanly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { call, headersFor, userMessage } from './wire.js';

let tb: TestBridge;

beforeAll(async () => {
  tb = await startTestBridge({ isolatedEnv: true });
});
afterAll(async () => {
  await tb.cleanup();
});

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

describe('version negotiation', () => {
  it('v1 §3.6.2 versioning: A2A-Version 1.0 selects the v1 methods (PascalCase, TASK_STATE_* enums)', async () => {
    const res = await call(
      tb,
      '1.0',
      'SendMessage',
      { message: userMessage('1.0', 'v1 please') },
      { path: '/agents/echo' },
    );
    expect(res.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('v1 §3.6.2 versioning: no header means 0.3 (category/action methods, kind discriminators)', async () => {
    const res = await call(
      tb,
      undefined,
      'message/send',
      { message: userMessage('0.3', 'old style') },
      { path: '/agents/echo' },
    );
    expect(res.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const explicit = await call(
      tb,
      '0.3',
      'message/send',
      { message: userMessage('0.3', 'explicit') },
      { path: '/agents/echo' },
    );
    expect(explicit.result.kind).toBe('task');
  });

  it('v1 §3.6.2 versioning: patch numbers do not influence negotiation (1.0.1 is 1.0)', async () => {
    const res = await call(tb, '1.0.1', 'GetTask', { id: 'no-such-task' });
    expect(res.error?.code).toBe(-32001);
  });

  it('v1 §3.6.2 versioning: an unsupported version is -32009 VersionNotSupported, echoing the request id, with ErrorInfo', async () => {
    for (const v of ['2.0', '0.2', 'banana']) {
      const res = await fetch(`${tb.url}/agents/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}`, ...headersFor(v) },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'req-7',
          method: 'SendMessage',
          params: { message: userMessage('1.0', 'x') },
        }),
      });
      const body = (await res.json()) as { id: unknown; error: { code: number; message: string; data: unknown } };
      expect(body.error.code).toBe(-32009);
      expect(body.error.message).toContain('1.0');
      expect(body.id).toBe('req-7');
      expect(body.error.data).toEqual([
        expect.objectContaining({ '@type': ERROR_INFO, reason: 'VERSION_NOT_SUPPORTED' }),
      ]);
    }
  });

  it('v1 §3.6.2 versioning: the query parameter A2A-Version works like the header', async () => {
    const res = await fetch(`${tb.url}/agents/echo?A2A-Version=1.0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } }),
    });
    const body = (await res.json()) as { error: { code: number } };
    expect(body.error.code).toBe(-32001);
  });

  it('v1 §3.6.2 versioning: a method of the other version is refused with a hint, not run', async () => {
    const v1Only = await call(tb, undefined, 'GetTask', { id: 'x' });
    expect(v1Only.error?.code).toBe(-32009);
    expect(v1Only.error?.message).toContain('A2A-Version: 1.0');
    const v03Only = await call(tb, '1.0', 'tasks/get', { id: 'x' });
    expect(v03Only.error?.code).toBe(-32601);
    expect(v03Only.error?.message).toContain('GetTask');
  });
});

describe('error shapes', () => {
  it('v1 §5.4 errors: every A2A error carries data: [google.rpc.ErrorInfo] with the reason and domain', async () => {
    const cases: [string, unknown, number, string][] = [
      ['GetTask', { id: 'no-such-task' }, -32001, 'TASK_NOT_FOUND'],
      ['GetTask', { historyLength: 1 }, -32602, 'INVALID_PARAMS'],
      ['GetExtendedAgentCard', {}, -32004, 'UNSUPPORTED_OPERATION'],
      [
        'CreateTaskPushNotificationConfig',
        { taskId: 't', url: 'https://example.com/hook' },
        -32003,
        'PUSH_NOTIFICATION_NOT_SUPPORTED',
      ],
      ['NoSuchMethod', {}, -32601, 'METHOD_NOT_FOUND'],
    ];
    for (const [method, params, code, reason] of cases) {
      const res = await call(tb, '1.0', method, params, { path: '/agents/echo' });
      expect(res.error?.code).toBe(code);
      expect(res.error?.data).toEqual([
        { '@type': ERROR_INFO, reason, domain: 'a2a-protocol.org', metadata: expect.any(Object) },
      ]);
    }
  });

  it('v0.3 §8 errors: codes are the same, data is free-form (no ErrorInfo array)', async () => {
    const res = await call(tb, '0.3', 'tasks/get', { id: 'no-such-task' });
    expect(res.error?.code).toBe(-32001);
    expect(Array.isArray(res.error?.data)).toBe(false);
  });

  it('v1 §9 JSON-RPC binding: malformed JSON is -32700 and a bad envelope -32600, with ErrorInfo', async () => {
    const post = (body: string) =>
      fetch(`${tb.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}`, 'A2A-Version': '1.0' },
        body,
      }).then((r) => r.json() as Promise<{ error: { code: number; data: unknown } }>);
    const parse = await post('{not json');
    expect(parse.error.code).toBe(-32700);
    expect(parse.error.data).toEqual([expect.objectContaining({ '@type': ERROR_INFO, reason: 'PARSE_ERROR' })]);
    const envelope = await post(JSON.stringify({ id: 1, method: 'GetTask' }));
    expect(envelope.error.code).toBe(-32600);
    expect(envelope.error.data).toEqual([expect.objectContaining({ reason: 'INVALID_REQUEST' })]);
  });
});

describe('capability validation', () => {
  const PUSH_V1 = [
    'CreateTaskPushNotificationConfig',
    'GetTaskPushNotificationConfig',
    'ListTaskPushNotificationConfigs',
    'DeleteTaskPushNotificationConfig',
  ];
  const PUSH_V03 = [
    'tasks/pushNotificationConfig/set',
    'tasks/pushNotificationConfig/get',
    'tasks/pushNotificationConfig/list',
    'tasks/pushNotificationConfig/delete',
  ];

  it('v1 §3.3.4 capabilities: every push-notification method is -32003 (the card says pushNotifications: false)', async () => {
    for (const method of PUSH_V1) {
      const res = await call(tb, '1.0', method, { taskId: 't', id: 'c' }, { path: '/agents/echo' });
      expect(res.error?.code, method).toBe(-32003);
    }
  });

  it('v0.3 §7.5–7.8 push notifications: every pushNotificationConfig method is -32003', async () => {
    for (const method of PUSH_V03) {
      const res = await call(tb, '0.3', method, { id: 't', taskId: 't' }, { path: '/agents/echo' });
      expect(res.error?.code, method).toBe(-32003);
    }
  });

  it('v1 §3.1.11 GetExtendedAgentCard: not offered, so -32004 UnsupportedOperation (the card says extendedAgentCard: false)', async () => {
    const res = await call(tb, '1.0', 'GetExtendedAgentCard', {}, { path: '/agents/echo' });
    expect(res.error?.code).toBe(-32004);
    const card = (await (await fetch(`${tb.url}/agents/echo/.well-known/agent-card.json`)).json()) as {
      capabilities: Record<string, unknown>;
    };
    expect(card.capabilities).toMatchObject({ extendedAgentCard: false, pushNotifications: false, streaming: true });
  });

  it('v0.3 §7.10 agent/getAuthenticatedExtendedCard: not offered, so -32004', async () => {
    const res = await call(tb, '0.3', 'agent/getAuthenticatedExtendedCard', {});
    expect(res.error?.code).toBe(-32004);
  });
});
