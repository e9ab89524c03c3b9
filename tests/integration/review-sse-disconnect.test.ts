/**
 * A task stream whose client goes away must unsubscribe at once. Node emits a request's 'close' as soon
 * as its body has been read, not when the client disconnects, so a stream that waited on that would keep
 * its listener on the task until the task next changed — for a task parked on a long question, days.
 */
import { afterEach, expect, it } from 'vitest';
import { fixtureAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';

let bridge: TestBridge | undefined;
afterEach(async () => {
  await bridge?.cleanup();
  bridge = undefined;
});

/** How many listeners the live task has (the dispatcher keeps one of its own). */
function listenersOf(b: TestBridge, taskId: string): number {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const live = (b.bridge.server.dispatcher as any).live.get(taskId);
  return live ? (live.listeners as Set<unknown>).size : -1;
}

async function until(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 100; i += 1) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

it('a subscriber that disconnects is unsubscribed from its task while the task runs on', async () => {
  bridge = await startTestBridge({ agents: { sleepy: fixtureAgent('sleeper.mjs') } });
  const sent = await bridge.rpc(
    'message/send',
    {
      message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'zz' }] },
      configuration: { blocking: false },
    },
    { path: '/agents/sleepy' },
  );
  const taskId = sent.result.id as string;
  const before = listenersOf(bridge, taskId);
  expect(before).toBeGreaterThan(0);

  const client = new AbortController();
  const res = await fetch(`${bridge.url}/agents/sleepy`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bridge.token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: taskId } }),
    signal: client.signal,
  });
  const reader = res.body!.getReader();
  let seen = '';
  while (!seen.includes('data:')) seen += new TextDecoder().decode((await reader.read()).value);
  expect(listenersOf(bridge, taskId)).toBe(before + 1);

  client.abort();
  expect(await until(() => listenersOf(bridge!, taskId) === before)).toBe(true);
  expect(bridge.bridge.server.dispatcher.get(taskId).status.state).toBe('working');
});
