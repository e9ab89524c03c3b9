/**
 * `contactor mcp` started by an agent of the bridge is that agent, whatever its env or arguments say
 * (SECURITY.md#who-may-do-what, "MCP clients"): the attack is an agent that launches its MCP server with
 * CONTACTOR_AGENT naming another agent, or without it, or with `--as` another agent, hoping to act as that
 * agent or as the person. The bridge is reached as an agent reaches it (CONTACTOR_URL + CONTACTOR_TOKEN),
 * once with the install token out of reach (another HOME) and once beside it (its config and data dir).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { callTool, stdioClient } from '../front-doors/mcp-helpers.js';

let bridge: TestBridge;
/** A question the person asked echo: only the person (and no agent) may list or answer it. */
let personsTask: string;

beforeAll(async () => {
  bridge = await startTestBridge({ agents: { echo: echoAgent(), helper: echoAgent() } });
  const asked = await bridge.rpc('message/send', {
    message: { kind: 'message', messageId: 'm-person', role: 'user', parts: [{ kind: 'text', text: 'decide: a|b' }] },
    metadata: { agent: 'echo' },
  });
  expect(asked.result.status.state).toBe('input-required');
  personsTask = asked.result.id;
});
afterAll(async () => {
  await bridge?.cleanup();
});

/** Launch environments an agent could give its `contactor mcp`: helper's own token each time. */
const LAUNCHES: { name: string; env: (b: TestBridge) => Record<string, string | undefined>; args: string[] }[] = [
  { name: 'CONTACTOR_AGENT names another agent', env: () => ({ CONTACTOR_AGENT: 'echo' }), args: [] },
  { name: 'CONTACTOR_AGENT missing', env: () => ({ CONTACTOR_AGENT: undefined }), args: [] },
  { name: 'CONTACTOR_AGENT missing, --as another agent', env: () => ({}), args: ['--as', 'echo'] },
  {
    name: 'CONTACTOR_AGENT missing, beside the data dir that holds the install token',
    env: (b) => ({ CONTACTOR_CONFIG: b.configPath }),
    args: ['--as', 'echo'],
  },
  {
    name: 'CONTACTOR_AGENT names another agent, beside the data dir',
    env: (b) => ({ CONTACTOR_CONFIG: b.configPath, CONTACTOR_AGENT: 'echo' }),
    args: [],
  },
];

describe('contactor mcp launched by an agent acts as the agent its token proves', () => {
  it.each(LAUNCHES)('$name', async ({ env, args }) => {
    const mcp = await stdioClient(bridge, 'claude-code', {
      args,
      env: { CONTACTOR_TOKEN: deriveAgentToken(bridge.token, 'helper'), ...env(bridge) },
    });
    try {
      const reply = await callTool(mcp.client, 'send_task', { agent: 'echo', brief: 'who am i' });
      expect(reply.isError).toBeUndefined();
      const task = await bridge.rpc('tasks/get', { id: reply.structured.taskId });
      expect(task.result.metadata.createdBy).toBe('agent:helper');
      // Not the person: the person's open question is neither listed nor answerable nor cancellable.
      const pending = await callTool(mcp.client, 'list_pending', {});
      expect(pending.structured.tasks).toEqual([]);
      const answered = await callTool(mcp.client, 'answer_question', { taskId: personsTask, answer: 'a' });
      expect(answered.isError).toBe(true);
      const canceled = await callTool(mcp.client, 'cancel_task', { taskId: personsTask });
      expect(canceled.isError).toBe(true);
      const still = await bridge.rpc('tasks/get', { id: personsTask });
      expect(still.result.status.state).toBe('input-required');
    } finally {
      await mcp.close();
    }
  });
});
