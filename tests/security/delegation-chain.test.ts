/**
 * Which chain a task belongs to (SECURITY.md#delegation-chains), as an attacking agent tries it over real
 * HTTP: gamma runs the third hop of alpha → beta → gamma and sends back to beta, naming some other task as
 * its parent (an unrelated finished one, another agent's, one that does not exist, one of its own in
 * another chain) and claiming a short chain, in every form a send takes. The bridge builds gamma's chain
 * from its token and the tasks it runs, so every one of them stays a loop, and what the activity view and
 * `top` show is the chain the bridge recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerChain } from '../../main/cli/top/layout.js';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { echoAgent, fakeAcpAgent, startTestBridge, type RpcResponse, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, runCli } from '../cli/run-cli.js';

const LOOP = 'delegation loop: "beta" is already in this chain (alpha → beta → gamma)';

let tb: TestBridge;
/** Task ids by role: t1 person → alpha, t2 alpha → beta, t3 beta → gamma, t4 person → gamma, t0 person → echo (finished). */
const ids: Record<'t0' | 't1' | 't2' | 't3' | 't4', string> = { t0: '', t1: '', t2: '', t3: '', t4: '' };

function as(agent: string): { headers: Record<string, string> } {
  return { headers: { authorization: `Bearer ${deriveAgentToken(tb.token, agent)}` } };
}

async function started(res: RpcResponse): Promise<string> {
  expect(res.error).toBeUndefined();
  expect(res.result.status.state).not.toBe('rejected');
  return res.result.id as string;
}

beforeAll(async () => {
  tb = await startTestBridge({
    agents: { alpha: fakeAcpAgent(), beta: fakeAcpAgent(), gamma: fakeAcpAgent(), echo: echoAgent() },
    config: { rate_limit_per_minute: 10_000, max_delegation_depth: 5 },
  });
  const running = { text: 'stream', configuration: { blocking: false } };
  ids.t1 = await started(await tb.rpc('message/send', { agent: 'alpha', ...running }));
  ids.t2 = await started(await tb.rpc('message/send', { agent: 'beta', ...running }, as('alpha')));
  ids.t3 = await started(await tb.rpc('message/send', { agent: 'gamma', ...running }, as('beta')));
  ids.t4 = await started(await tb.rpc('message/send', { agent: 'gamma', ...running }));
  const finished = await tb.rpc('message/send', { agent: 'echo', text: 'hello' });
  expect(finished.result.status.state).toBe('completed');
  ids.t0 = finished.result.id as string;
});

afterAll(async () => {
  for (const id of Object.values(ids)) await tb?.rpc('tasks/cancel', { id }).catch(() => undefined);
  await tb?.cleanup();
});

/** The parent an attacker names, by role (literal: what each row means is in its name). */
const PARENTS: [string, () => string][] = [
  ['an unrelated finished task of the person', () => ids.t0],
  ['a running task of another agent (alpha)', () => ids.t1],
  ['the task that delegated to gamma (beta)', () => ids.t2],
  ['a task id that does not exist', () => 'no-such-task'],
  ["gamma's own running task in another chain", () => ids.t4],
  ["gamma's own task in this chain", () => ids.t3],
];

/** A short chain the attacker claims besides the parent, as the delegation hints say it. */
const CLAIM = { delegationDepth: 0, visitedAgents: ['echo'] };

type Form = (parent: string) => Promise<{ state: string; text: string; taskId: string }>;

const v03 = (res: RpcResponse) => ({
  state: res.result.status.state as string,
  text: res.result.status.message.parts[0].text as string,
  taskId: res.result.id as string,
});

/** Every way a send reaches the bridge over HTTP, as gamma (its own token) sends it. */
const FORMS: [string, Form][] = [
  [
    'v0.3 shorthand message/send',
    async (parent) =>
      v03(await tb.rpc('message/send', { agent: 'beta', text: 'x', parentTaskId: parent, ...CLAIM }, as('gamma'))),
  ],
  [
    'v0.3 standard message, params.metadata.parentTaskId',
    async (parent) =>
      v03(
        await tb.rpc(
          'message/send',
          {
            message: { role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text: 'x' }] },
            metadata: { agent: 'beta', parentTaskId: parent, ...CLAIM },
          },
          as('gamma'),
        ),
      ),
  ],
  [
    'v0.3 standard message, params.message.metadata.parentTaskId',
    async (parent) =>
      v03(
        await tb.rpc(
          'message/send',
          {
            message: {
              role: 'user',
              messageId: crypto.randomUUID(),
              parts: [{ kind: 'text', text: 'x' }],
              metadata: { parentTaskId: parent, ...CLAIM },
            },
          },
          { path: '/agents/beta', ...as('gamma') },
        ),
      ),
  ],
  [
    'v1 SendMessage, params.metadata.parentTaskId',
    async (parent) => {
      const res = await tb.rpc(
        'SendMessage',
        {
          message: { role: 'ROLE_USER', messageId: crypto.randomUUID(), parts: [{ text: 'x' }] },
          metadata: { agent: 'beta', parentTaskId: parent, ...CLAIM },
        },
        { headers: { ...as('gamma').headers, 'a2a-version': '1.0' } },
      );
      expect(res.error).toBeUndefined();
      const task = res.result.task;
      return {
        state: task.status.state === 'TASK_STATE_REJECTED' ? 'rejected' : (task.status.state as string),
        text: task.status.message.parts[0].text as string,
        taskId: task.id as string,
      };
    },
  ],
  [
    'agents/orchestrate',
    async (parent) => {
      const res = await tb.rpc(
        'agents/orchestrate',
        { agents: ['beta'], text: 'x', blocking: false, parentTaskId: parent, ...CLAIM },
        as('gamma'),
      );
      expect(res.error).toBeUndefined();
      const [child] = res.result.results;
      return { state: child.state, text: child.reason, taskId: child.taskId };
    },
  ],
];

describe('an agent cannot choose its chain with a parentTaskId', () => {
  for (const [form, send] of FORMS) {
    for (const [role, parent] of PARENTS) {
      it(`${form} naming ${role}: still the loop alpha → beta → gamma → beta`, async () => {
        const sent = await send(parent());
        expect(sent).toMatchObject({ state: 'rejected', text: expect.stringContaining(LOOP) });
        const stored = (await tb.rpc('tasks/get', { id: sent.taskId })).result;
        expect(stored.metadata.visitedAgents).toEqual(['alpha', 'beta', 'gamma']);
        expect(stored.metadata.delegationDepth).toBe(3);
        expect(stored.metadata.parentTaskId).toBe([ids.t3, ids.t4].includes(parent()) ? parent() : undefined);
        const row = tb.bridge.activity.rowsOf([sent.taskId])[0]!;
        expect(row.chain).toEqual(['alpha', 'beta', 'gamma']);
        expect(callerChain(row)).toBe('alpha → beta → gamma → beta');
      });
    }
  }

  it.each([
    ['message/stream', { agent: 'beta', text: 'x' }, {}],
    [
      'SendStreamingMessage',
      { message: { role: 'ROLE_USER', messageId: 'stream-v1', parts: [{ text: 'x' }] }, metadata: { agent: 'beta' } },
      { 'a2a-version': '1.0' },
    ],
  ] as const)(
    '%s naming an unrelated finished task: the first event is the refused loop',
    async (method, base, headers) => {
      const params =
        'metadata' in base
          ? { ...base, metadata: { ...base.metadata, parentTaskId: ids.t0, ...CLAIM } }
          : { ...base, parentTaskId: ids.t0, ...CLAIM };
      const res = await fetch(tb.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...as('gamma').headers, ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      const first = (await res.text()).split('\n').find((line) => line.startsWith('data:'))!;
      const result = JSON.parse(first.slice('data:'.length)).result;
      const task = result.task ?? result;
      expect(task.status.message.parts[0].text).toContain(LOOP);
      const stored = (await tb.rpc('tasks/get', { id: task.id })).result;
      expect(stored.status.state).toBe('rejected');
      expect(stored.metadata.visitedAgents).toEqual(['alpha', 'beta', 'gamma']);
    },
  );

  it('the CLI inside gamma (its delegation env naming an unrelated finished task) is refused as the loop', async () => {
    const run = await runCli(['send', 'beta', 'x'], {
      env: bridgeEnv(tb, {
        CONTACTOR_TOKEN: deriveAgentToken(tb.token, 'gamma'),
        CONTACTOR_AGENT: 'gamma',
        CONTACTOR_TASK_ID: ids.t0,
        CONTACTOR_DEPTH: '0',
        CONTACTOR_VISITED: 'echo',
      }),
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(LOOP);
  });
});

describe('what an accepted send of an agent records and shows', () => {
  it('the recorded chain, whatever chain the hints claim; the parent link only to a task the caller runs', async () => {
    const bogus = await tb.rpc(
      'message/send',
      { agent: 'echo', text: 'via a bogus parent', parentTaskId: ids.t0, ...CLAIM },
      as('gamma'),
    );
    const own = await tb.rpc(
      'message/send',
      { agent: 'echo', text: 'via its own task', parentTaskId: ids.t3, ...CLAIM },
      as('gamma'),
    );
    for (const res of [bogus, own]) {
      expect(res.result.status.state).toBe('completed');
      expect(res.result.metadata).toMatchObject({
        delegationDepth: 3,
        visitedAgents: ['alpha', 'beta', 'gamma', 'echo'],
      });
    }
    expect(bogus.result.metadata.parentTaskId).toBeUndefined();
    expect(own.result.metadata.parentTaskId).toBe(ids.t3);

    const rows = tb.bridge.activity.rowsOf([bogus.result.id, own.result.id]);
    expect(rows.map((r) => callerChain(r))).toEqual(['alpha → beta → gamma → echo', 'alpha → beta → gamma → echo']);
    const children = tb.bridge.activity.detail(ids.t3, 200).children.map((r) => r.taskId);
    expect(children).toContain(own.result.id);
    expect(children).not.toContain(bogus.result.id);
    expect(tb.bridge.activity.detail(ids.t0, 200).children).toEqual([]);
  });
});
