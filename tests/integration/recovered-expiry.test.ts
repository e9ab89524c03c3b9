/**
 * Questions recovered at start-up expire on time exactly like the others — the task
 * fails (reject, never allow), the outcome is recorded as `expired` by `expiry`, and subscribers see it
 * (a decision, CLI echo agent). A permission whose agent-side request died with the bridge (ACP agent without
 * session/load) does not wait for its expiry: it fails at start-up, never allowed.
 */
import { afterEach, expect, it } from 'vitest';
import { METHODS, call, describeEvent, openStream, stateOf } from '../a2a/wire.js';
import { echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { waitForState } from '../helpers/wait.js';

// Long enough that nothing expires on the real clock; the restarted bridge expires questions on the test's.
const APPROVAL_TIMEOUT_S = 3600;
let bridges: TestBridge[] = [];
afterEach(async () => {
  await Promise.all(bridges.map((b) => b.cleanup()));
  bridges = [];
});

async function start(dataDir?: string, timers?: ManualTimers): Promise<TestBridge> {
  const b = await startTestBridge({
    agents: {
      echo: echoAgent({ approval_timeout_s: APPROVAL_TIMEOUT_S }),
      fake: fakeAcpAgent([], { approval_timeout_s: APPROVAL_TIMEOUT_S }),
    },
    ...(dataDir ? { dataDir } : {}),
    ...(timers ? { timers } : {}),
  });
  bridges.push(b);
  return b;
}

it('decisions recovered after a restart expire at their stored expiresAt; lost permissions fail at once, never allow', async () => {
  const first = await start();
  const decision = (await first.rpc('message/send', { agent: 'echo', text: 'decide: red|blue' })).result;
  const permission = (await first.rpc('message/send', { agent: 'fake', text: 'permission' })).result;
  expect(decision.metadata.pending.kind).toBe('decision');
  expect(permission.metadata.pending.kind).toBe('permission');
  await first.stop();

  const clock = new ManualTimers();
  const second = await start(first.dataDir, clock);
  // Scheduled at their stored expiresAt, however long the restart took (the reminders come before).
  const expiries = [decision].map((t) => Date.parse(t.metadata.pending.expiresAt));
  const lost = (await second.rpc('tasks/get', { id: permission.id })).result;
  expect(lost.status.state).toBe('failed');
  expect(lost.status.message.parts[0].text).toContain('the bridge restarted while this task waited for permission');
  expect(lost.metadata.pending).toBeUndefined();
  expect(clock.due()).toEqual(expect.arrayContaining(expiries));
  expect(Math.max(...clock.due())).toBe(Math.max(...expiries));

  // Subscribed before the expiry: the recovered task's stream carries it (v1 stays open until terminal).
  const watching = await openStream(second, {
    version: '1.0',
    method: METHODS['1.0'].subscribe,
    params: { id: decision.id },
  });
  const opening = await watching.next();
  expect(describeEvent('1.0', opening!)).toMatchObject({ kind: 'task', state: 'input-required' });
  // Not a moment early: a millisecond before its expiresAt each question still waits.
  clock.advanceTo(Math.min(...expiries) - 1);
  expect((await second.rpc('tasks/get', { id: decision.id })).result.status.state).toBe('input-required');
  clock.advanceTo(Math.max(...expiries));
  await waitForState(second, decision.id, ['failed']);
  const events = await watching.rest();
  expect(describeEvent('1.0', events.at(-1)!)).toMatchObject({ kind: 'status', state: 'failed' });

  for (const [task, what] of [[decision, 'decision']] as const) {
    await waitForState(second, task.id, ['failed']);
    const v1 = (await call(second, '1.0', 'GetTask', { id: task.id })).result;
    const v03 = (await call(second, '0.3', 'tasks/get', { id: task.id })).result;
    expect(stateOf(v1)).toBe('failed');
    expect(v03.status.state).toBe('failed');
    expect(v03.status.message.parts[0].text).toContain(`nobody answered the ${what} before it expired`);
    expect(v03.metadata.pending).toBeUndefined();
    expect(v03.metadata.answeredBy).toBe('expiry');
    expect(v03.metadata.questions.at(-1)).toMatchObject({ outcome: 'expired', by: 'expiry' });
  }
  // The recovered permission was never allowed: an answer now is refused, the task stays failed.
  const late = await second.rpc('tasks/answer', { taskId: permission.id, answer: 'yes' });
  expect(late.error).toBeDefined();
});
