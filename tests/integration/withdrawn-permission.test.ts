/**
 * An ACP agent withdraws its own permission request — it cancels the request
 * (`$/cancel_request`), or its turn ends while the question is open. The pending question is cleared
 * with outcome `withdrawn`, the task goes back to working and ends with the turn: never a question that
 * no answer can reach. Seen through both protocol versions' streams and reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS, call, describeEvent, openStream, userMessage, type Version } from '../a2a/wire.js';
import { fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';

let tb: TestBridge;
beforeAll(async () => {
  tb = await startTestBridge({ agents: { fake: fakeAcpAgent() } });
});
afterAll(async () => {
  await tb.cleanup();
});

const CASES = [
  { prompt: 'withdraw 400', how: 'the agent cancels its request', reply: '; carrying on' },
  { prompt: 'ask-and-leave 400', how: 'the turn ends with the request open', reply: 'ended the turn without waiting' },
] as const;

describe.each(['1.0', '0.3'] as const)('A2A %s', (version: Version) => {
  it.each(CASES)('$how: the question is withdrawn and the task completes', async ({ prompt, reply }) => {
    // message/stream ends at the interrupted state, so the question is seen first; then it goes away.
    const asked = await openStream(tb, {
      version,
      method: METHODS[version].stream,
      params: { message: userMessage(version, prompt) },
      path: '/agents/fake',
    });
    const first = await asked.rest();
    const id = describeEvent(version, first[0]!).result.id as string;
    expect(describeEvent(version, first.at(-1)!)).toMatchObject({ kind: 'status', state: 'input-required' });

    const watching = await openStream(tb, {
      version,
      method: METHODS[version].subscribe,
      params: { id },
      path: '/agents/fake',
      lastEventId: first.at(-1)!.id!,
    });
    const after = (await watching.rest()).map((e) => describeEvent(version, e));
    const withdrawn = after.find((d) => d.result.metadata?.event === 'pending-withdrawn');
    expect(withdrawn?.result.metadata).toMatchObject({ pendingKind: 'permission', by: 'agent' });
    expect(after.some((d) => d.kind === 'status' && d.state === 'working')).toBe(true);
    expect(after.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });

    const task = (await call(tb, version, METHODS[version].get, { id })).result;
    expect(task.metadata.pending).toBeUndefined();
    expect(task.metadata.questions).toEqual([expect.objectContaining({ kind: 'permission', outcome: 'withdrawn' })]);
    expect(JSON.stringify(task.artifacts)).toContain(reply);
    const pending = await tb.rpc('pending/list', {});
    expect(pending.result.tasks.map((t: { id: string }) => t.id)).not.toContain(id);
    const late = await tb.rpc('tasks/answer', { taskId: id, answer: 'yes' });
    expect(late.error?.code).toBe(-32004);
  });
});
