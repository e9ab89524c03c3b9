/**
 * Questions recovered at start-up expire on time exactly like the others — the task
 * fails (reject, never allow), the outcome is recorded as `expired` by `expiry`, and subscribers see it.
 * Both kinds: a decision (CLI echo agent) and a permission whose agent-side request died with the bridge
 * (ACP agent without session/load).
 */
import { afterEach, expect, it } from 'vitest';
import { METHODS, call, describeEvent, openStream, stateOf, waitForState } from '../a2a/wire.js';
import { echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';

const APPROVAL_TIMEOUT_S = 3;
let bridges: TestBridge[] = [];
afterEach(async () => {
  await Promise.all(bridges.map((b) => b.cleanup()));
  bridges = [];
});

async function start(dataDir?: string): Promise<TestBridge> {
  const b = await startTestBridge({
    agents: {
      echo: echoAgent({ approval_timeout_s: APPROVAL_TIMEOUT_S }),
      fake: fakeAcpAgent([], { approval_timeout_s: APPROVAL_TIMEOUT_S }),
    },
    ...(dataDir ? { dataDir } : {}),
  });
  bridges.push(b);
  return b;
}

it('decisions and permissions recovered after a restart expire at their stored expiresAt and fail, never allow', async () => {
  const first = await start();
  const decision = (await first.rpc('message/send', { agent: 'echo', text: 'decide: red|blue' })).result;
  const permission = (await first.rpc('message/send', { agent: 'fake', text: 'permission' })).result;
  expect(decision.metadata.pending.kind).toBe('decision');
  expect(permission.metadata.pending.kind).toBe('permission');
  await first.stop();

  const second = await start(first.dataDir);
  // Subscribed before the expiry: the recovered task's stream carries it (v1 stays open until terminal).
  const watching = await openStream(second, {
    version: '1.0',
    method: METHODS['1.0'].subscribe,
    params: { id: decision.id },
  });
  await waitForState(second, decision.id, ['failed'], 10_000);
  const events = await watching.rest();
  expect(describeEvent('1.0', events[0]!)).toMatchObject({ kind: 'task', state: 'input-required' });
  expect(describeEvent('1.0', events.at(-1)!)).toMatchObject({ kind: 'status', state: 'failed' });

  for (const [task, what] of [
    [decision, 'decision'],
    [permission, 'permission request'],
  ] as const) {
    await waitForState(second, task.id, ['failed'], 10_000);
    const v1 = (await call(second, '1.0', 'GetTask', { id: task.id })).result;
    const v03 = (await call(second, '0.3', 'tasks/get', { id: task.id })).result;
    expect(stateOf(v1)).toBe('failed');
    expect(v03.status.state).toBe('failed');
    expect(v03.status.message.parts[0].text).toContain(`nobody answered the ${what} before it expired`);
    expect(v03.metadata.pending).toBeUndefined();
    expect(v03.metadata.answeredBy).toBe('expiry');
    expect(v03.metadata.questions.at(-1)).toMatchObject({ outcome: 'expired', by: 'expiry' });
    // It expired on time: not before the stored expiresAt.
    expect(Date.parse(v03.status.timestamp)).toBeGreaterThanOrEqual(Date.parse(task.metadata.pending.expiresAt));
  }
  // The recovered permission was never allowed: an answer now is refused, the task stays failed.
  const late = await second.rpc('tasks/answer', { taskId: permission.id, answer: 'yes' });
  expect(late.error).toBeDefined();
}, 30_000);
