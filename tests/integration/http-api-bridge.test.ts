/**
 * An http_api agent inside a real bridge, against the streaming mock server: the decision contract
 * reaches the model and its decision block parks the task; the answer continues the same
 * conversation; contextId keeps history across tasks; the agent's timeout fails the task retryably.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DECISION_MARKER } from '../../main/domain/decision-contract.js';
import {
  lastUserText,
  startMockChatServer,
  streamText,
  type MockChatServer,
} from '../fixtures/http-api/mock-chat-server.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

let mock: MockChatServer;
let tb: TestBridge;
const KEY_ENV = 'CONTACTOR_TEST_LLM_KEY';

beforeAll(async () => {
  process.env[KEY_ENV] = 'sk-bridge-test';
  mock = await startMockChatServer();
  const llm = {
    kind: 'http_api',
    base_url: mock.baseUrl,
    model: 'mock',
    api_key_env: KEY_ENV,
    timeout_s: TEST_TIMEOUT_MS / 1000,
  };
  tb = await startTestBridge({ agents: { llm, slow: { ...llm, timeout_s: 1 } } });
});
afterAll(async () => {
  await tb.cleanup();
  await mock.close();
  delete process.env[KEY_ENV];
});
beforeEach(() => {
  mock.requests.length = 0;
});

describe('http_api agent in a bridge', () => {
  it('a decision block from the model parks the task; the answer continues the same conversation', async () => {
    mock.behave((req, res) => {
      const last = req.body.messages.at(-1).content as string;
      if (last.includes('The requester chose: blue')) return streamText(res, ['Painting it ', 'blue.']);
      return streamText(res, [
        'Which colour?\n',
        `${DECISION_MARKER}\n- red\n- blue\n`,
        'RECOMMEND: red\nREASON: it is brighter',
      ]);
    });
    const sent = await tb.rpc('message/send', { agent: 'llm', text: 'paint the shed' });
    expect(sent.result.status.state).toBe('input-required');
    expect(sent.result.metadata.pending).toMatchObject({
      kind: 'decision',
      question: 'Which colour?',
      options: ['red', 'blue'],
      recommend: 'red',
    });
    // The runtime's contract reached the model with the requester's text.
    expect(mock.requests[0]!.body.messages[0].content).toContain(
      'If you cannot continue without the requester choosing',
    );

    await tb.rpc('tasks/answer', { taskId: sent.result.id, answer: 'blue' });
    await expect
      .poll(async () => (await tb.rpc('tasks/get', { id: sent.result.id })).result.status.state, {
        timeout: TEST_TIMEOUT_MS,
      })
      .toBe('completed');
    const second = mock.requests[1]!.body.messages as { role: string; content: string }[];
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(second[0]!.content).toBe('paint the shed');
    expect(second[1]!.content).toContain('RECOMMEND: red');
    const done = (await tb.rpc('tasks/get', { id: sent.result.id })).result;
    expect(done.artifacts.at(-1).parts[0].text).toBe('Painting it blue.');
  });

  it('keeps history across tasks of one contextId', async () => {
    mock.behave((req, res) => streamText(res, [`answer to ${lastUserText(req)}`]));
    const contextId = crypto.randomUUID();
    await tb.rpc('message/send', { agent: 'llm', text: 'first', contextId });
    const second = await tb.rpc('message/send', { agent: 'llm', text: 'second', contextId });
    expect(second.result.status.state).toBe('completed');
    const messages = mock.requests[1]!.body.messages as { role: string; content: string }[];
    expect(messages.map((m) => `${m.role}:${m.content.split('\n')[0]}`)).toEqual([
      'user:first',
      'assistant:answer to first',
      'user:second',
    ]);
  });

  it("the agent's timeout stops a hung server and fails the task as retryable", async () => {
    mock.behave((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': still thinking\n\n');
    });
    const sent = await tb.rpc('message/send', { agent: 'slow', text: 'take forever' });
    expect(sent.result.status.state).toBe('failed');
    expect(sent.result.metadata.retryable).toBe(true);
    expect(sent.result.status.message.parts[0].text).toMatch(/timed out/);
  });
});
