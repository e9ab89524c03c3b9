/**
 * An ACP agent withdraws its own permission request — it cancels the request
 * (`$/cancel_request`), or its turn ends while the question is open. The pending question is cleared
 * with outcome `withdrawn`, the task goes back to working and ends with the turn: never a question that
 * no answer can reach. Seen through both protocol versions' streams and reads.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS, call, describeEvent, openStream, userMessage, type Version } from '../a2a/wire.js';
import { fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { pollUntil, waitForState } from '../helpers/wait.js';

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

describe('a withdrawal while the agent keeps working', () => {
  it('clears the question and puts the task back to working before the turn ends', async () => {
    // The turn outlives its withdrawn question: the turn-end clean-up cannot stand in for the withdrawal here.
    const dir = mkdtempSync(path.join(tmpdir(), 'contactor-withdraw-'));
    const go = path.join(dir, 'withdraw');
    const end = path.join(dir, 'end-turn');
    try {
      const asked = (await tb.rpc('message/send', { agent: 'fake', text: `withdraw-and-work ${go} ${end}` })).result;
      expect(asked.status.state).toBe('input-required');
      expect(asked.metadata.pending).toMatchObject({ kind: 'permission' });
      const watching = await openStream(tb, {
        version: '1.0',
        method: METHODS['1.0'].subscribe,
        params: { id: asked.id },
        path: '/agents/fake',
      });

      writeFileSync(go, '');
      // The agent says it took the request back only after cancelling it, over the same ordered stream.
      const working = await pollUntil(
        () => tb.rpc('tasks/get', { id: asked.id }),
        (res) => JSON.stringify(res.result?.artifacts ?? []).includes('still working'),
        'the agent to say it carries on',
      );
      expect(working.result.status.state).toBe('working');
      expect(working.result.metadata.pending).toBeUndefined();
      expect(working.result.metadata.questions).toEqual([
        expect.objectContaining({ kind: 'permission', outcome: 'withdrawn' }),
      ]);
      // The bridge answered the request it was asked to drop as ACP says: with the `cancelled` outcome.
      expect(JSON.stringify(working.result.artifacts)).toContain('answered {\\"outcome\\":\\"cancelled\\"}');
      const pending = await tb.rpc('pending/list', {});
      expect(pending.result.tasks.map((t: { id: string }) => t.id)).not.toContain(asked.id);
      const late = await tb.rpc('tasks/answer', { taskId: asked.id, answer: 'yes' });
      expect(late.error?.code).toBe(-32004);

      writeFileSync(end, '');
      const events = (await watching.rest()).map((e) => describeEvent('1.0', e));
      const withdrawnAt = events.findIndex((d) => d.result.metadata?.event === 'pending-withdrawn');
      const completedAt = events.findIndex((d) => d.kind === 'status' && d.state === 'completed');
      expect(withdrawnAt).toBeGreaterThanOrEqual(0);
      expect(withdrawnAt).toBeLessThan(completedAt);
      expect(events.slice(withdrawnAt, completedAt).some((d) => d.kind === 'status' && d.state === 'working')).toBe(
        true,
      );
      expect(JSON.stringify((await waitForState(tb, asked.id, 'completed')).artifacts)).toContain('; done');
    } finally {
      writeFileSync(end, '');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
