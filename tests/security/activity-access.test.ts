/**
 * The activity view shows every task on the machine, so only the person may read it (SECURITY.md "Who
 * may do what": follow every task). Performed as an agent would, with the token it gets in
 * CONTACTOR_TOKEN: the snapshot, one task's detail and the resumable feed are all refused with -32066.
 * And an agent cannot file its work under a task it does not run: a parentTaskId naming another
 * agent's task, or one that has finished, is not recorded, so that task's children stay its own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';

const TEST_MS = 120_000;

let tb: TestBridge | undefined;
afterEach(async () => {
  await tb?.cleanup();
  tb = undefined;
});

async function rpcAs(b: TestBridge, token: string, method: string, params: unknown) {
  const res = await fetch(b.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (await res.json()) as { result?: any; error?: { code: number; message: string } };
}

describe('the activity view against an agent token', () => {
  it(
    'refuses the snapshot, the detail and the resumable feed with -32066, saying who may',
    async () => {
      tb = await startTestBridge({ agents: { echo: echoAgent(), spy: echoAgent() } });
      const victim = await tb.rpc('message/send', { agent: 'echo', text: 'the person asks for something private' });
      const spy = deriveAgentToken(tb.token, 'spy');

      for (const [method, params] of [
        ['activity/snapshot', {}],
        ['activity/task', { taskId: victim.result.id }],
      ] as const) {
        const reply = await rpcAs(tb, spy, method, params);
        expect(reply.result, method).toBeUndefined();
        expect(reply.error?.code, method).toBe(-32066);
        expect(reply.error?.message).toMatch(/agent spy may not follow every task: only the person may/);
      }
      const person = await tb.rpc('activity/snapshot', {});
      const cursor = person.result.cursor as string;
      for (const [query, headers] of [
        [`?since=${encodeURIComponent(cursor.replace(/\d+$/, '0'))}`, {}],
        ['', { 'last-event-id': cursor.replace(/\d+$/, '0') }],
      ] as const) {
        const res = await fetch(`${tb.url}/events${query}`, {
          headers: { authorization: `Bearer ${spy}`, ...headers },
        });
        expect(res.status).toBe(403);
        const body = (await res.json()) as { error?: { code: number } };
        expect(body.error?.code).toBe(-32066);
      }
    },
    TEST_MS,
  );

  it(
    "refuses one task's detail to the agent that created the task and to the agent running it",
    async () => {
      tb = await startTestBridge({ agents: { boss: echoAgent(), worker: echoAgent() } });
      const boss = deriveAgentToken(tb.token, 'boss');
      const worker = deriveAgentToken(tb.token, 'worker');
      const sent = await rpcAs(tb, boss, 'message/send', { agent: 'worker', text: 'delegated work' });
      expect(sent.result.metadata).toMatchObject({ createdBy: 'agent:boss', agent: 'worker' });
      const taskId = sent.result.id as string;
      for (const [name, token] of [
        ['boss', boss],
        ['worker', worker],
      ] as const) {
        const reply = await rpcAs(tb, token, 'activity/task', { taskId });
        expect(reply.result, name).toBeUndefined();
        expect(reply.error?.code, name).toBe(-32066);
        expect(reply.error?.message).toContain(`agent ${name} may not follow every task: only the person may`);
      }
      // Both may still read the task itself ("read tasks"); the person follows it in the activity view.
      for (const token of [boss, worker])
        expect((await rpcAs(tb, token, 'tasks/get', { id: taskId })).result.id).toBe(taskId);
      expect((await tb.rpc('activity/task', { taskId })).result.task.id).toBe(taskId);
    },
    TEST_MS,
  );

  it(
    "does not record a parentTaskId naming another agent's task, nor a finished one; the agent running it may",
    async () => {
      tb = await startTestBridge({ agents: { echo: fakeAcpAgent(), spy: echoAgent(), helper: echoAgent() } });
      const finished = (await tb.rpc('message/send', { agent: 'echo', text: 'echo done' })).result.id as string;
      // echo keeps running this task (the fake agent streams until canceled).
      const running = { agent: 'echo', text: 'stream', configuration: { blocking: false } };
      const echoTask = (await tb.rpc('message/send', running)).result.id as string;
      const spy = deriveAgentToken(tb.token, 'spy');
      const forged = await rpcAs(tb, spy, 'message/send', {
        agent: 'helper',
        text: 'filed under echo',
        parentTaskId: echoTask,
      });
      expect(forged.error).toBeUndefined();
      expect(forged.result.metadata.parentTaskId).toBeUndefined();
      const echoToken = deriveAgentToken(tb.token, 'echo');
      const own = await rpcAs(tb, echoToken, 'message/send', { agent: 'helper', text: 'mine', parentTaskId: echoTask });
      expect(own.result.metadata.parentTaskId).toBe(echoTask);
      const done = await rpcAs(tb, echoToken, 'message/send', { agent: 'helper', text: 'old', parentTaskId: finished });
      expect(done.result.metadata.parentTaskId).toBeUndefined();
      const detail = await tb.rpc('activity/task', { taskId: echoTask });
      expect(detail.result.children.map((c: { taskId: string }) => c.taskId)).toEqual([own.result.id]);
      await tb.rpc('tasks/cancel', { id: echoTask });
    },
    TEST_MS,
  );
});
