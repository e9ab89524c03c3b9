/**
 * Nothing goes around the bridge's choke points: every tool reaches the bridge only through the BridgeRpc
 * it is given, and only through methods the authority table has a row for (main/transport/method-actions.ts),
 * so each call is asked about as any client's is. The folder imports nothing that could reach the runtime
 * directly (tests/layering/rules.ts, `front-door-mcp`). Real SDK client and server over an in-memory pair;
 * the bridge is a recording fake of the port.
 */
import { CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { BridgeRpcError, type BridgeRpc } from '../../main/front-doors/mcp/bridge-rpc.js';
import { createContactorMcpServer } from '../../main/front-doors/mcp/mcp-server.js';
import { METHOD_ACTIONS } from '../../main/transport/method-actions.js';
import { testClient } from './mcp-helpers.js';

const TASK = {
  kind: 'task',
  id: 't1',
  contextId: 'c1',
  status: { state: 'completed' },
  artifacts: [{ parts: [{ kind: 'text', text: 'done' }] }],
  metadata: { agent: 'echo' },
};

/** What a tool call sends to the bridge, method by method: literal, one row per tool. */
const EXPECTED: Record<string, { args: Record<string, unknown>; methods: string[] }> = {
  list_agents: { args: {}, methods: ['agents/list'] },
  send_task: { args: { agent: 'echo', brief: 'hi' }, methods: ['message/stream', 'tasks/get'] },
  get_task: { args: { taskId: 't1' }, methods: ['tasks/get'] },
  answer_question: { args: { taskId: 't1', answer: 'a' }, methods: ['tasks/answer'] },
  cancel_task: { args: { taskId: 't1' }, methods: ['tasks/cancel'] },
  list_pending: { args: {}, methods: ['pending/list'] },
};

function recordingRpc(calls: string[]): BridgeRpc {
  const answer = (method: string): unknown => {
    if (method === 'agents/list') return { agents: [] };
    if (method === 'pending/list') return { tasks: [] };
    return TASK;
  };
  return {
    call: async (method) => {
      calls.push(method);
      return answer(method);
    },
    stream: async (method, _params, onResult) => {
      calls.push(method);
      onResult(TASK);
    },
  };
}

describe('every MCP tool goes through the bridge methods and their authority rows', () => {
  it.each(Object.entries(EXPECTED))('%s', async (tool, expected) => {
    const calls: string[] = [];
    const server = createContactorMcpServer({
      version: '0',
      rpc: async () => recordingRpc(calls),
      settings: { waitMs: 5_000, maxBriefChars: 100 },
    });
    const client = testClient('test');
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const result = await client.callTool({ name: tool, arguments: expected.args });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(calls).toEqual(expected.methods);
      for (const method of calls) expect(Object.hasOwn(METHOD_ACTIONS, method)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('the table above covers every tool the server lists', async () => {
    const server = createContactorMcpServer({
      version: '0',
      rpc: async () => recordingRpc([]),
      settings: { waitMs: 5_000, maxBriefChars: 100 },
    });
    const client = testClient('test');
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it('a brief over the size limit is a tool error naming the limit, and reaches no bridge method', async () => {
    const calls: string[] = [];
    const server = createContactorMcpServer({
      version: '0',
      rpc: async () => recordingRpc(calls),
      settings: { waitMs: 5_000, maxBriefChars: 100 },
    });
    const client = testClient('test');
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const result = await client.callTool({ name: 'send_task', arguments: { agent: 'echo', brief: 'x'.repeat(101) } });
    await client.close();
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('the brief is over 100 characters');
    expect(calls).toEqual([]);
  });

  it('send_task as an MCP task, and tasks/get, go through message/send and tasks/get', async () => {
    const calls: string[] = [];
    const server = createContactorMcpServer({
      version: '0',
      rpc: async () => recordingRpc(calls),
      settings: { waitMs: 5_000, maxBriefChars: 100 },
    });
    const client = testClient('test');
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const created = await client.request(
      { method: 'tools/call', params: { name: 'send_task', arguments: { agent: 'echo', brief: 'hi' }, task: {} } },
      CreateTaskResultSchema,
    );
    expect(created.task).toMatchObject({ taskId: 't1', status: 'completed' });
    const got = await client.request({ method: 'tasks/get', params: { taskId: 't1' } }, GetTaskResultSchema);
    await client.close();
    expect(got.status).toBe('completed');
    expect(calls).toEqual(['message/send', 'tasks/get']);
    for (const method of calls) expect(Object.hasOwn(METHOD_ACTIONS, method)).toBe(true);
  });

  it('get_task with wait: a task that stops between the read and the resubscribe is read again, not an error', async () => {
    const calls: string[] = [];
    const states = ['working', 'completed'];
    const rpc: BridgeRpc = {
      call: async (method) => {
        calls.push(method);
        return { ...TASK, status: { state: states.shift() } };
      },
      stream: async (method) => {
        calls.push(method);
        throw new BridgeRpcError(-32004, 'task t1 is completed; nothing to resubscribe to');
      },
    };
    const server = createContactorMcpServer({
      version: '0',
      rpc: async () => rpc,
      settings: { waitMs: 5_000, maxBriefChars: 100 },
    });
    const client = testClient('test');
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const result = await client.callTool({ name: 'get_task', arguments: { taskId: 't1', wait: true } });
    await client.close();
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ taskId: 't1', state: 'completed', done: true, reply: 'done' });
    expect(calls).toEqual(['tasks/get', 'tasks/resubscribe', 'tasks/get']);
  });
});
