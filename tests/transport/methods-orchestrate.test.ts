/**
 * `agents/orchestrate` over real HTTP against a real bridge: fan-out by names or capability, the three
 * modes, per-child failures, idempotency and the parameter errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, nodeScriptAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';

/** One `agents/orchestrate` result entry. */
interface ChildResult {
  agent: string;
  taskId: string;
  state: string;
  text: string;
  reason?: string;
  retryable?: boolean;
}

let tb: TestBridge;

beforeAll(async () => {
  tb = await startTestBridge({
    agents: {
      alpha: echoAgent({ tags: ['review'] }),
      beta: echoAgent({ skills: [{ id: 'r', name: 'review', description: 'reviews code', tags: ['Review'] }] }),
      sleepy: nodeScriptAgent('tests/fixtures/cli/sleeper.mjs', { tags: ['review'] }),
      broken: {
        ...nodeScriptAgent('tests/fixtures/cli/exit-code.mjs'),
        command: [process.execPath, 'tests/fixtures/cli/exit-code.mjs', '3', 'boom'],
        cwd: process.cwd(),
      },
    },
  });
});
afterAll(() => tb.cleanup());

const orchestrate = (params: Record<string, unknown>) => tb.rpc('agents/orchestrate', params);

describe('agents/orchestrate', () => {
  it('mode all: every named agent gets its own task, results side by side', async () => {
    const res = await orchestrate({ agents: ['alpha', 'beta', 'broken'], text: 'look at this', mode: 'all' });
    expect(res.error).toBeUndefined();
    const { orchestrationId, mode, results } = res.result;
    expect(mode).toBe('all');
    expect(results.map((r: ChildResult) => [r.agent, r.state])).toEqual([
      ['alpha', 'completed'],
      ['beta', 'completed'],
      ['broken', 'failed'],
    ]);
    expect(results[0].text.trim()).toBe('echo: look at this');
    expect(results[2], JSON.stringify(results[2])).toMatchObject({
      retryable: false,
      text: 'partial',
      reason: expect.stringMatching(/exited with code 3: boom/),
    });
    // Each child is a normal task, linked by the orchestration id in its first message.
    const child = (await tb.rpc('tasks/get', { id: results[0].taskId })).result;
    expect(child.history[0].metadata.orchestration).toEqual({ id: orchestrationId, mode: 'all' });
    expect(child.metadata.agent).toBe('alpha');
  });

  it('mode first: returns with the first completed child and cancels the rest', async () => {
    const res = await orchestrate({ capability: 'review', text: 'quick one', mode: 'first' });
    const { winner, results } = res.result;
    expect(['alpha', 'beta']).toContain(winner);
    expect(results.map((r: ChildResult) => r.agent).sort()).toEqual(['alpha', 'beta', 'sleepy']);
    expect(results.find((r: ChildResult) => r.agent === winner).state).toBe('completed');
    const sleepy = results.find((r: ChildResult) => r.agent === 'sleepy');
    expect(sleepy.state).toBe('canceled');
    expect((await tb.rpc('tasks/get', { id: sleepy.taskId })).result.status.state).toBe('canceled');
  });

  it('mode best behaves like all and says the bridge does not judge content', async () => {
    const res = await orchestrate({ agents: ['alpha', 'beta'], text: 'which is best?', mode: 'best' });
    expect(res.result.results.every((r: ChildResult) => r.state === 'completed')).toBe(true);
    expect(res.result.note).toMatch(/does not judge content/);
    expect(res.result.winner).toBeUndefined();
  });

  it('matches a capability against backend kinds too, and can return at once', async () => {
    const res = await orchestrate({ capability: 'subprocess_cli', text: 'ping', blocking: false });
    expect(res.result.results.map((r: ChildResult) => r.agent).sort()).toEqual(['alpha', 'beta', 'broken', 'sleepy']);
    expect(res.result.results.every((r: ChildResult) => typeof r.taskId === 'string')).toBe(true);
    const sleepy = res.result.results.find((r: ChildResult) => r.agent === 'sleepy');
    await tb.rpc('tasks/cancel', { id: sleepy.taskId });
  });

  it('is idempotent with a messageId: the same children come back', async () => {
    const params = { agents: ['alpha', 'beta'], text: 'once only', messageId: `orch-${crypto.randomUUID()}` };
    const first = await orchestrate(params);
    const again = await orchestrate(params);
    expect(again.result.orchestrationId).toBe(params.messageId);
    expect(again.result.results.map((r: ChildResult) => r.taskId)).toEqual(
      first.result.results.map((r: ChildResult) => r.taskId),
    );
  });

  it('refuses bad params with errors a person can act on', async () => {
    const none = await orchestrate({ capability: 'translation', text: 'x' });
    expect(none.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/no agent matches capability "translation".*alpha/),
    });
    const both = await orchestrate({ agents: ['alpha'], capability: 'review', text: 'x' });
    expect(both.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/either agents .* or capability/),
    });
    const unknown = await orchestrate({ agents: ['alpha', 'ghost'], text: 'x' });
    expect(unknown.error).toMatchObject({ code: -32060, message: expect.stringContaining('ghost') });
    const badMode = await orchestrate({ agents: ['alpha'], text: 'x', mode: 'fastest' });
    expect(badMode.error).toMatchObject({ code: -32602, message: expect.stringMatching(/mode must be/) });
  });
});
