/**
 * `contactor mcp` on stdio, driven by the official SDK's Client + StdioClientTransport against a real
 * bridge: the tools, a delegation with its progress, a question, bad input, and who the server is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { callTool, stdioClient, type Connected } from './mcp-helpers.js';

let bridge: TestBridge;
let claude: Connected;

beforeAll(async () => {
  bridge = await startTestBridge({ agents: { echo: echoAgent() } });
  claude = await stdioClient(bridge, 'claude-code');
});
afterAll(async () => {
  await claude?.close();
  await bridge?.cleanup();
});

describe('contactor mcp (stdio)', () => {
  it('lists the six tools, each with an input and an output schema', async () => {
    const { tools } = await claude.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'answer_question',
      'cancel_task',
      'get_task',
      'list_agents',
      'list_pending',
      'send_task',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description!.length).toBeGreaterThan(40);
    }
  });

  it('list_agents: name, what it is for, whether it asks, streams, is busy', async () => {
    const reply = await callTool(claude.client, 'list_agents', {});
    expect(reply.isError).toBeUndefined();
    expect(reply.structured.agents).toEqual([
      expect.objectContaining({ name: 'echo', canAsk: true, streams: false, busy: false, waiting: 0 }),
    ]);
    expect(reply.text).toContain('- echo:');
  });

  it('send_task returns the reply, with progress, and the task was created by the client as an agent', async () => {
    const progress: string[] = [];
    const reply = await callTool(
      claude.client,
      'send_task',
      { agent: 'echo', brief: 'hello over MCP' },
      { onprogress: (p) => progress.push(p.message ?? '') },
    );
    expect(reply.isError).toBeUndefined();
    expect(reply.structured).toMatchObject({
      agent: 'echo',
      state: 'completed',
      done: true,
      reply: 'echo: hello over MCP\n',
    });
    expect(progress).toContain('[completed]');
    const task = await bridge.rpc('tasks/get', { id: reply.structured.taskId });
    expect(task.result.metadata.createdBy).toBe('agent:claude-code');
  });

  it('a question comes back with its options; answer_question answers it as the creator', async () => {
    const asked = await callTool(claude.client, 'send_task', { agent: 'echo', brief: 'decide: red|blue' });
    expect(asked.structured).toMatchObject({
      state: 'input-required',
      done: false,
      question: {
        kind: 'decision',
        options: [
          { id: 'red', label: 'red' },
          { id: 'blue', label: 'blue' },
        ],
      },
    });
    expect(asked.text).toContain('answer_question');
    const pending = await callTool(claude.client, 'list_pending', {});
    expect(pending.structured.tasks.map((t: { taskId: string }) => t.taskId)).toEqual([asked.structured.taskId]);
    const answered = await callTool(claude.client, 'answer_question', {
      taskId: asked.structured.taskId,
      answer: 'blue',
    });
    expect(answered.isError).toBeUndefined();
    const done = await callTool(claude.client, 'get_task', { taskId: asked.structured.taskId, wait: true });
    expect(done.structured).toMatchObject({ state: 'completed', reply: 'Going with blue. Done.\n' });
  });

  it('bad input is a tool error a model can act on', async () => {
    const unknown = await callTool(claude.client, 'send_task', { agent: 'nobody', brief: 'hi' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain('no agent named "nobody"');
    expect(unknown.text).toContain('list_agents');
    const missing = await callTool(claude.client, 'get_task', { taskId: 'no-such-task' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('task not found');
  });
});

describe('who contactor mcp is', () => {
  it('started by an agent of the bridge (CONTACTOR_AGENT + its own token) it is that agent', async () => {
    const two = await startTestBridge({ agents: { echo: echoAgent(), helper: echoAgent() } });
    const mcp = await stdioClient(two, 'claude-code', {
      env: { CONTACTOR_AGENT: 'helper', CONTACTOR_TOKEN: deriveAgentToken(two.token, 'helper') },
    });
    try {
      const reply = await callTool(mcp.client, 'send_task', { agent: 'echo', brief: 'from helper' });
      const task = await two.rpc('tasks/get', { id: reply.structured.taskId });
      expect(task.result.metadata.createdBy).toBe('agent:helper');
    } finally {
      await mcp.close();
      await two.cleanup();
    }
  });

  it('given the install token (CONTACTOR_TOKEN without CONTACTOR_AGENT) it still acts as an agent, named by --as', async () => {
    const mcp = await stdioClient(bridge, 'claude-code', { args: ['--as', 'my-editor'] });
    try {
      const reply = await callTool(mcp.client, 'send_task', { agent: 'echo', brief: 'as whom' });
      const task = await bridge.rpc('tasks/get', { id: reply.structured.taskId });
      expect(task.result.metadata.createdBy).toBe('agent:my-editor');
      // A person-only method stays out of reach: the same token the server uses is refused there.
      const config = await callTool(mcp.client, 'list_pending', {});
      expect(config.structured.tasks).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
  it("a client that calls itself by a configured agent's name (OpenCode's `opencode`) acts as <name>-client", async () => {
    const mcp = await stdioClient(bridge, 'echo');
    try {
      const reply = await callTool(mcp.client, 'send_task', { agent: 'echo', brief: 'named like an agent' });
      expect(reply.isError).toBeUndefined();
      const task = await bridge.rpc('tasks/get', { id: reply.structured.taskId });
      expect(task.result.metadata.createdBy).toBe('agent:echo-client');
    } finally {
      await mcp.close();
    }
  });
});

describe('contactor mcp when things go wrong', () => {
  it('a bridge that is down and cannot be started: each tool call is a tool error saying so', async () => {
    const dead = { ...bridge, url: 'http://127.0.0.1:9' } as TestBridge;
    const mcp = await stdioClient(dead, 'claude-code');
    try {
      const reply = await callTool(mcp.client, 'list_agents', {});
      expect(reply.isError).toBe(true);
      expect(reply.text).toContain('no bridge answers at CONTACTOR_URL=http://127.0.0.1:9');
      const again = await callTool(mcp.client, 'send_task', { agent: 'echo', brief: 'hi' });
      expect(again.isError).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it('send_task waits at most --wait, then returns the task id and how to follow it; the task goes on', async () => {
    const slow = await startTestBridge({ agents: { slow: fakeAcpAgent() } });
    const mcp = await stdioClient(slow, 'claude-code', { args: ['--wait', '1'] });
    try {
      const reply = await callTool(mcp.client, 'send_task', { agent: 'slow', brief: 'stream' });
      expect(reply.isError).toBeUndefined();
      expect(reply.structured).toMatchObject({ state: 'working', done: false });
      expect(reply.structured.next).toContain('get_task');
      const task = await slow.rpc('tasks/get', { id: reply.structured.taskId });
      expect(task.result.status.state).toBe('working');
      const canceled = await callTool(mcp.client, 'cancel_task', { taskId: reply.structured.taskId });
      expect(canceled.structured.state).toBe('canceled');
    } finally {
      await mcp.close();
      await slow.cleanup();
    }
  });
});
