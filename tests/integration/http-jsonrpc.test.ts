/**
 * JSON-RPC 2.0 over real HTTP: the envelope errors, batches, notifications and the exposure rule
 * (JSON-RPC 2.0 §4–§6; docs/contract.md#error-codes).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskStore } from '../../main/ports.js';
import { eventually } from '../helpers/wait.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { postRaw } from './http-raw.js';

/** The -32600 message's parts, as a person reads them (main/transport/invalid-request.ts). */
const EXAMPLE = 'send {"jsonrpc": "2.0", "id": 1, "method": "<method>", "params": {…}}';
const JSONRPC = '"jsonrpc" must be "2.0"';
const METHOD = '"method" must be a non-empty string naming the method';
const ID = '"id" must be a string or a number (without "id" the request is a notification and gets no reply)';

let tb: TestBridge;
const post = (body: string) => postRaw(tb.url, tb.token, body);

beforeAll(async () => {
  tb = await startTestBridge();
});
afterAll(async () => {
  await tb.cleanup();
});

describe('envelope errors', () => {
  it('answers malformed JSON with -32700 and id null', async () => {
    const res = await post('{"jsonrpc": "2.0", "method": ');
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  // The v0.3 conformance kit's invalid requests (a2a-tck tests/mandatory/jsonrpc/test_json_rpc_compliance.py)
  // carry no id and still expect an error reply with HTTP 200: an invalid request is not a notification.
  it.each([
    ['missing jsonrpc', { id: 1, method: 'agents/list' }, 1, JSONRPC],
    ['wrong jsonrpc version', { jsonrpc: '1.0', id: 1, method: 'agents/list' }, 1, JSONRPC],
    ['method not a string', { jsonrpc: '2.0', id: 1, method: 42 }, 1, METHOD],
    ['empty method', { jsonrpc: '2.0', id: 'e', method: '' }, 'e', METHOD],
    ['no jsonrpc and no method', { id: 2 }, 2, `${JSONRPC}; ${METHOD}`],
    ['wrong jsonrpc, no id (the kit)', { jsonrpc: 'aaa', method: 'message/send', params: {} }, null, JSONRPC],
    ['no method, no id (the kit)', { jsonrpc: '2.0', params: {} }, null, METHOD],
    ['an object id (the kit)', { jsonrpc: '2.0', method: 'message/send', params: {}, id: { bad: 'type' } }, null, ID],
    ['a bare string', 'agents/list', null, 'it is a string, not an object'],
    ['a number', 7, null, 'it is a number, not an object'],
    ['null', null, null, 'it is null, not an object'],
  ])('answers an invalid request (%s) with -32600 naming what is wrong', async (_name, body, id, problem) => {
    const res = await post(JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id,
      error: { code: -32600, message: `invalid JSON-RPC 2.0 request: ${problem}; ${EXAMPLE}` },
    });
  });

  it('keeps the id of an invalid request when it has one', async () => {
    const res = await post(JSON.stringify({ id: 'abc', method: 'agents/list' }));
    expect(res.json()).toMatchObject({ id: 'abc', error: { code: -32600 } });
  });

  it('answers an unknown method with -32601 naming it', async () => {
    const res = await tb.rpc('tasks/explode', {});
    expect(res.error?.code).toBe(-32601);
    expect(res.error?.message).toContain('tasks/explode');
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'treats "%s" as an unknown method, not an Object member',
    async (method) => {
      const res = await tb.rpc(method, {});
      expect(res.error?.code).toBe(-32601);
    },
  );

  it('answers params that are not an object with -32602', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'agents/list', params: 'x' }));
    expect(res.json()).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  it('answers an unknown task with -32001', async () => {
    const res = await tb.rpc('tasks/get', { id: 'no-such-task' });
    expect(res.error?.code).toBe(-32001);
    expect(res.error?.message).toContain('no-such-task');
  });

  it('answers an unknown agent with -32060 listing the agents', async () => {
    const res = await tb.rpc('message/send', { agent: 'nobody', text: 'hi' });
    expect(res.error?.code).toBe(-32060);
    expect(res.error?.message).toContain('echo');
    const card = await tb.rpc('agents/card', { agent: 'nobody' });
    expect(card.error?.code).toBe(-32060);
  });
});

describe('bad params name the field (-32602)', () => {
  it.each([
    ['agent of the wrong type', 'message/send', { agent: 7, text: 'hi' }, 'params.agent'],
    ['text of the wrong type', 'message/send', { agent: 'echo', text: ['hi'] }, 'params.text'],
    ['empty text', 'message/send', { agent: 'echo', text: '' }, 'params.text'],
    [
      'historyLength -1 on send',
      'message/send',
      { agent: 'echo', text: 'hi', configuration: { historyLength: -1 } },
      'historyLength',
    ],
    ['historyLength -1 on get', 'tasks/get', { id: 'x', historyLength: -1 }, 'params.historyLength'],
    [
      'empty parts',
      'message/send',
      { message: { role: 'user', messageId: 'm1', parts: [] }, metadata: { agent: 'echo' } },
      'params.message.parts',
    ],
    ['a task id of the wrong type', 'tasks/get', { id: 5 }, 'params.id'],
    ['answer without taskId', 'tasks/answer', { answer: 'yes' }, 'params.taskId'],
    ['card without agent', 'agents/card', {}, 'params.agent'],
  ])('%s', async (_name, method, params, field) => {
    const res = await tb.rpc(method, params);
    expect(res.error?.code).toBe(-32602);
    expect(res.error?.message).toContain(field);
  });
});

describe('cancel', () => {
  it('refuses to cancel a completed task with -32002', async () => {
    const sent = await tb.rpc('message/send', { agent: 'echo', text: 'done soon' });
    expect(sent.result.status.state).toBe('completed');
    const res = await tb.rpc('tasks/cancel', { id: sent.result.id });
    expect(res.error?.code).toBe(-32002);
    expect(res.error?.message).toContain('completed');
  });
});

describe('batches and notifications', () => {
  it('answers a batch with one reply per request, in any order, skipping notifications', async () => {
    const res = await post(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'agents/list', params: {} },
        { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: 'missing' } },
        { jsonrpc: '2.0', method: 'agents/list', params: {} },
        { junk: true },
      ]),
    );
    const replies = res.json() as { id: unknown; result?: unknown; error?: { code: number } }[];
    expect(Array.isArray(replies)).toBe(true);
    expect(replies).toHaveLength(3);
    const byId = new Map(replies.map((r) => [r.id, r]));
    expect(byId.get(1)?.result).toMatchObject({ agents: [expect.objectContaining({ name: 'echo' })] });
    expect(byId.get(2)?.error?.code).toBe(-32001);
    expect(byId.get(null)?.error?.code).toBe(-32600);
  });

  it('answers an array of junk with one -32600 per element, each saying what is wrong', async () => {
    const res = await post(JSON.stringify([1, 'two', {}, [3]]));
    const replies = res.json() as { id: unknown; error: { code: number; message: string } }[];
    expect(replies.map((r) => [r.id, r.error.code, r.error.message])).toEqual([
      [null, -32600, `invalid JSON-RPC 2.0 request: it is a number, not an object; ${EXAMPLE}`],
      [null, -32600, `invalid JSON-RPC 2.0 request: it is a string, not an object; ${EXAMPLE}`],
      [null, -32600, `invalid JSON-RPC 2.0 request: ${JSONRPC}; ${METHOD}; ${EXAMPLE}`],
      [
        null,
        -32600,
        `invalid JSON-RPC 2.0 request: it is an array, not an object (a batch cannot hold another batch); ${EXAMPLE}`,
      ],
    ]);
  });

  it('answers an empty batch with a single -32600', async () => {
    const res = await post('[]');
    expect(res.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('answers a notification with 204 and no body, even when the method fails', async () => {
    for (const call of [
      { jsonrpc: '2.0', method: 'agents/list', params: {} },
      { jsonrpc: '2.0', method: 'tasks/get', params: { id: 'missing' } },
      { jsonrpc: '2.0', method: 'no/such/method' },
    ]) {
      const res = await post(JSON.stringify(call));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
    }
  });

  it('answers a batch made only of notifications with 204', async () => {
    const res = await post(JSON.stringify([{ jsonrpc: '2.0', method: 'agents/list' }]));
    expect(res.status).toBe(204);
  });
});

describe('internal errors', () => {
  it('become -32603 with a correlation id, no stack and no internals; the details go to the log', async () => {
    const own = await startTestBridge();
    try {
      // The one way to break a healthy bridge from outside its code: close its store under it.
      (own.bridge.server as unknown as { opts: { store: TaskStore } }).opts.store.close();
      const res = await own.rpc('tasks/get', { id: 'anything' });
      expect(res.error?.code).toBe(-32603);
      const data = res.error?.data as { correlationId: string };
      expect(data.correlationId).toMatch(/^[0-9a-f-]{36}$/);
      const body = JSON.stringify(res);
      expect(body).not.toMatch(/\bat .+:\d+:\d+/); // stack frame
      expect(body).not.toMatch(/database|sqlite|\.ts\b|node_modules/i);
      // The log is written asynchronously (pino, sync: false): wait for the line, do not race it.
      const logFile = path.join(own.dataDir, 'logs', 'bridge.log');
      const logged = () => existsSync(logFile) && readFileSync(logFile, 'utf8').includes(data.correlationId);
      await eventually(logged);
      expect(readFileSync(logFile, 'utf8')).not.toContain(own.token);
    } finally {
      await own.cleanup();
    }
  });
});
