/**
 * `/mcp` on the bridge, driven by the SDK's Client + StreamableHTTPClientTransport: behind the same gate
 * (Host, Origin, token) as every route, the bearer token saying who calls; elicitation; two clients at once;
 * a client that goes away mid-task.
 */
import {
  CallToolResultSchema,
  CancelledNotificationSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  GetTaskResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveAgentToken, deriveExternalAgentToken } from '../../main/transport/caller-tokens.js';
import { echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { eventually } from '../helpers/wait.js';
import { callTool, httpClient } from './mcp-helpers.js';

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startTestBridge({ agents: { echo: echoAgent(), slow: fakeAcpAgent() } });
});
afterAll(() => bridge?.cleanup());

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('/mcp', () => {
  it('refuses a request without a token (401), from a web page (403), and at a foreign Host (421)', async () => {
    const none = await fetch(`${bridge.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: initialize });
    expect(none.status).toBe(401);
    await none.text();
    const page = await fetch(`${bridge.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${bridge.token}`, origin: 'https://evil.example' },
      body: initialize,
    });
    expect(page.status).toBe(403);
    await page.text();
  });

  it("an external agent's token is that agent: its tasks name it", async () => {
    const token = deriveExternalAgentToken(bridge.token, 'gemini-cli');
    const mcp = await httpClient(bridge, 'whatever-it-says', token);
    try {
      const reply = await callTool(mcp.client, 'send_task', { agent: 'echo', brief: 'via http' });
      expect(reply.structured).toMatchObject({ state: 'completed', reply: 'echo: via http\n' });
      const task = await bridge.rpc('tasks/get', { id: reply.structured.taskId });
      expect(task.result.metadata.createdBy).toBe('agent:gemini-cli');
    } finally {
      await mcp.close();
    }
  });

  it('the install token is not the person here: the client acts as the agent named by its clientInfo', async () => {
    const mcp = await httpClient(bridge, 'Claude Code', bridge.token);
    try {
      const reply = await callTool(mcp.client, 'send_task', { agent: 'echo', brief: 'who am i' });
      const task = await bridge.rpc('tasks/get', { id: reply.structured.taskId });
      expect(task.result.metadata.createdBy).toBe('agent:Claude-Code');
      // A person-only question stays out of reach: the activity view is not among the tools, and
      // list_pending shows only this client's tasks, not the one the person left open.
      await bridge.rpc('message/send', { agent: 'echo', text: 'decide: x|y' });
      const pending = await callTool(mcp.client, 'list_pending', {});
      expect(pending.structured.tasks).toEqual([]);
    } finally {
      await mcp.close();
    }
  });

  it("a client calling itself by a configured agent's name acts as <name>-client, never as that agent", async () => {
    // The agent `slow` sends a task that asks a question (its derived token is what proves it is `slow`).
    const slowToken = deriveAgentToken(bridge.token, 'slow');
    const res = await fetch(`${bridge.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${slowToken}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { agent: 'echo', text: 'decide: a|b' },
      }),
    });
    const slowTask = ((await res.json()) as { result: { id: string } }).result.id;
    const mcp = await httpClient(bridge, 'slow', bridge.token);
    try {
      const reply = await callTool(mcp.client, 'send_task', { agent: 'echo', brief: 'who am i' });
      expect(reply.isError).toBeUndefined();
      const task = await bridge.rpc('tasks/get', { id: reply.structured.taskId });
      expect(task.result.metadata.createdBy).toBe('agent:slow-client');
      // Named like the agent, it still cannot answer or cancel what the agent sent.
      const answer = await callTool(mcp.client, 'answer_question', { taskId: slowTask, answer: 'a' });
      expect(answer.isError).toBe(true);
      expect(answer.text).toContain('[-32066]');
      const cancel = await callTool(mcp.client, 'cancel_task', { taskId: slowTask });
      expect(cancel.isError).toBe(true);
      expect((await bridge.rpc('tasks/get', { id: slowTask })).result.status.state).toBe('input-required');
    } finally {
      await mcp.close();
    }
  });

  it("answering another caller's task is refused; so is cancelling it", async () => {
    const asked = await bridge.rpc('message/send', { agent: 'echo', text: 'decide: a|b' });
    const taskId = asked.result.id as string;
    const mallory = await httpClient(bridge, 'mallory', deriveExternalAgentToken(bridge.token, 'mallory'));
    try {
      const answer = await callTool(mallory.client, 'answer_question', { taskId, answer: 'a' });
      expect(answer.isError).toBe(true);
      expect(answer.text).toContain('[-32066]');
      expect(answer.text).toContain('only the tasks you sent');
      const cancel = await callTool(mallory.client, 'cancel_task', { taskId });
      expect(cancel.isError).toBe(true);
      expect(cancel.text).toContain('[-32066]');
      expect((await bridge.rpc('tasks/get', { id: taskId })).result.status.state).toBe('input-required');
    } finally {
      await mallory.close();
    }
  });

  it("another token cannot use a client's session", async () => {
    const alice = await httpClient(bridge, 'alice', deriveExternalAgentToken(bridge.token, 'alice'));
    try {
      const sessionId = (alice.client.transport as { sessionId?: string }).sessionId!;
      expect(sessionId).toBeTruthy();
      const res = await fetch(`${bridge.url}/mcp`, {
        method: 'POST',
        headers: {
          ...MCP_HEADERS,
          authorization: `Bearer ${deriveExternalAgentToken(bridge.token, 'bob')}`,
          'mcp-session-id': sessionId,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(res.status).toBe(404);
      await res.text();
    } finally {
      await alice.close();
    }
  });

  it('a question goes to the client user through elicitation, and the answer back through the bridge', async () => {
    const mcp = await httpClient(bridge, 'asker', deriveExternalAgentToken(bridge.token, 'asker'), {
      capabilities: { elicitation: {} },
    });
    const asked: string[] = [];
    mcp.client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { answer: 'blue' } };
    });
    try {
      const reply = await callTool(mcp.client, 'send_task', { agent: 'echo', brief: 'decide: red|blue' });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('asks');
      expect(reply.structured).toMatchObject({ state: 'completed', reply: 'Going with blue. Done.\n' });
      const task = await bridge.rpc('tasks/get', { id: reply.structured.taskId });
      expect(task.result.metadata.answeredBy).toBe('agent asker');
    } finally {
      await mcp.close();
    }
  });

  it('a question answered by the person elsewhere withdraws the elicitation nobody answers, and the tool goes on', async () => {
    // An agent's MCP client offers elicitation but has nobody to show the form to: it never answers.
    const mcp = await httpClient(bridge, 'silent', deriveExternalAgentToken(bridge.token, 'silent'), {
      capabilities: { elicitation: {} },
    });
    const asked: { message: string; id: unknown }[] = [];
    mcp.client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      asked.push({ message: request.params.message, id: extra.requestId });
      return new Promise(() => {});
    });
    // Read as the notifications arrive: the SDK's own handler drops a cancellation of request id 0, which
    // this first elicitation is (shared/protocol.js `_oncancel`: `if (!notification.params.requestId)`).
    const cancelled: unknown[] = [];
    mcp.client.setNotificationHandler(CancelledNotificationSchema, (n) => {
      cancelled.push(n.params.requestId);
    });
    try {
      const call = callTool(mcp.client, 'send_task', { agent: 'echo', brief: 'decide: red|blue' });
      await eventually(() => asked.length === 1, 'the elicitation');
      const taskId = /\(task (\S+)\)/.exec(asked[0]!.message)![1]!;
      // The person answers in the approval window (the install token).
      await bridge.rpc('tasks/answer', { taskId, answer: 'blue' });
      const reply = await call;
      expect(reply.structured).toMatchObject({ state: 'completed', reply: 'Going with blue. Done.\n' });
      expect(asked).toHaveLength(1);
      await eventually(() => cancelled.includes(asked[0]!.id), 'the elicitation withdrawn');
    } finally {
      await mcp.close();
    }
  });

  it('two clients at once each get their own reply', async () => {
    const a = await httpClient(bridge, 'one', deriveExternalAgentToken(bridge.token, 'one'));
    const b = await httpClient(bridge, 'two', deriveExternalAgentToken(bridge.token, 'two'));
    try {
      const [ra, rb] = await Promise.all([
        callTool(a.client, 'send_task', { agent: 'echo', brief: 'from one' }),
        callTool(b.client, 'send_task', { agent: 'echo', brief: 'from two' }),
      ]);
      expect([ra.structured.reply, rb.structured.reply]).toEqual(['echo: from one\n', 'echo: from two\n']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a client that goes away mid-task leaves the task running, listed, and its creator can still get it', async () => {
    const token = deriveExternalAgentToken(bridge.token, 'leaver');
    const first = await httpClient(bridge, 'leaver', token);
    const progress: string[] = [];
    const call = callTool(
      first.client,
      'send_task',
      { agent: 'slow', brief: 'stream' },
      {
        onprogress: (p) => progress.push(p.message ?? ''),
      },
    ).catch((err: unknown) => err);
    await eventually(() => progress.some((m) => m.includes('tick')), 'the streamed text as progress');
    await first.close();
    await call;
    const listed = await bridge.rpc('tasks/list', { agent: 'slow' });
    const task = listed.result.tasks[0];
    expect(task.status.state).toBe('working');
    expect(task.metadata.createdBy).toBe('agent:leaver');
    const again = await httpClient(bridge, 'leaver', token);
    try {
      const seen = await callTool(again.client, 'get_task', { taskId: task.id });
      expect(seen.structured).toMatchObject({ taskId: task.id, state: 'working', done: false });
      const canceled = await callTool(again.client, 'cancel_task', { taskId: task.id });
      expect(canceled.isError).toBeUndefined();
    } finally {
      await again.close();
    }
  });

  it('a client that asks for an MCP task gets the contactor task id at once; a reconnected client reads the same task', async () => {
    const token = deriveExternalAgentToken(bridge.token, 'tasker');
    const mcp = await httpClient(bridge, 'tasker', token);
    let id: string;
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.find((t) => t.name === 'send_task')?.execution).toEqual({ taskSupport: 'optional' });
      const created = await mcp.client.request(
        {
          method: 'tools/call',
          params: { name: 'send_task', arguments: { agent: 'echo', brief: 'as a task' }, task: { ttl: 60_000 } },
        },
        CreateTaskResultSchema,
      );
      id = created.task.taskId;
      const stored = await bridge.rpc('tasks/get', { id });
      expect(stored.result.id).toBe(id);
      expect(stored.result.metadata.createdBy).toBe('agent:tasker');
      const result = await mcp.client.request({ method: 'tasks/result', params: { taskId: id } }, CallToolResultSchema);
      expect(result.structuredContent).toMatchObject({ taskId: id, state: 'completed', reply: 'echo: as a task\n' });
    } finally {
      await mcp.close();
    }
    const again = await httpClient(bridge, 'tasker', token);
    try {
      const got = await again.client.request({ method: 'tasks/get', params: { taskId: id } }, GetTaskResultSchema);
      expect(got).toMatchObject({ taskId: id, status: 'completed' });
    } finally {
      await again.close();
    }
  });
});
