/**
 * Who may do what (main/domain/authority.ts, SECURITY.md "Who may do what"), performed the way an
 * attacker would: over real HTTP, with the real tokens an agent gets in CONTACTOR_TOKEN (derived from the
 * install token and its name). Every cell of the table is tried for the person, the agent that created
 * the task, the agent running it and another agent, against the verdicts SECURITY.md gives, written out
 * by hand below (never computed by allows(), which is what is under test); an ACP agent then tries to
 * approve its own permission request "as a person" by every route, with its own token.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTHORITY, allows, type Action, type Identity, type TaskParty } from '../../main/domain/authority.js';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { createBridge, type Bridge } from '../../main/wiring/wiring.js';
import { eventually } from '../helpers/wait.js';
import { ECHO_AGENT, fakeAcpAgent, tempDir, writeTestConfig } from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';

const TEST_MS = 180_000;

interface Running {
  bridge: Bridge;
  url: string;
  dir: string;
  dataDir: string;
  token: (who: Who) => string;
  shutdownAsked: () => number;
}

let running: Running | undefined;
afterEach(async () => {
  await running?.bridge.stop();
  running = undefined;
});

/** `worker` runs the tasks (the fake ACP agent), `boss` creates them, `stranger` is any other agent. */
async function start(): Promise<Running> {
  const dir = tempDir();
  const { configPath, dataDir } = writeTestConfig(dir, {
    agents: {
      worker: fakeAcpAgent(),
      boss: nodeFixture(ECHO_AGENT),
      stranger: nodeFixture(ECHO_AGENT),
      helper: nodeFixture(ECHO_AGENT),
    },
  });
  let shutdowns = 0;
  const bridge = await createBridge({
    configPath,
    env: { PATH: process.env.PATH, HOME: dir },
    onShutdownRequested: () => (shutdowns += 1),
  });
  await bridge.start();
  const install = bridge.token!;
  const tokens: Record<Who, string> = {
    person: install,
    creator: deriveAgentToken(install, 'boss'),
    runner: deriveAgentToken(install, 'worker'),
    other: deriveAgentToken(install, 'stranger'),
  };
  running = { bridge, url: bridge.url, dir, dataDir, token: (who) => tokens[who], shutdownAsked: () => shutdowns };
  return running;
}

const WHO = ['person', 'creator', 'runner', 'other'] as const;
type Who = (typeof WHO)[number];
const IDENTITY: Record<Who, Identity> = {
  person: { kind: 'person', via: 'token' },
  creator: { kind: 'agent', agent: 'boss' },
  runner: { kind: 'agent', agent: 'worker' },
  other: { kind: 'agent', agent: 'stranger' },
};

interface Reply {
  status: number;
  body: { result?: any; error?: { code: number; message: string } }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function post(r: Running, who: Who, method: string, params: unknown, v1 = false): Promise<Reply> {
  const res = await fetch(r.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${r.token(who)}`,
      ...(v1 ? { 'a2a-version': '1.0' } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, body: (await res.json()) as Reply['body'] };
}

type Verdict = 'allowed' | 'refused';

/**
 * SECURITY.md "Who may do what", cell by cell, for a task `boss` (creator) made and `worker` (runner)
 * runs; `other` is `stranger`, any other agent. Literal: a wrong rule in the table must not move this side.
 */
const TABLE: Record<Action, Record<Who, Verdict>> = {
  'answer a question': { person: 'allowed', creator: 'allowed', runner: 'refused', other: 'refused' },
  'cancel a task': { person: 'allowed', creator: 'allowed', runner: 'refused', other: 'refused' },
  // "those of its tasks": the tasks an agent created, never those it runs.
  'list open questions': { person: 'allowed', creator: 'allowed', runner: 'refused', other: 'refused' },
  'stop the bridge': { person: 'allowed', creator: 'refused', runner: 'refused', other: 'refused' },
  'reload the config': { person: 'allowed', creator: 'refused', runner: 'refused', other: 'refused' },
  'read the config': { person: 'allowed', creator: 'refused', runner: 'refused', other: 'refused' },
  'follow every task': { person: 'allowed', creator: 'refused', runner: 'refused', other: 'refused' },
  'send a task': { person: 'allowed', creator: 'allowed', runner: 'allowed', other: 'allowed' },
  'read tasks': { person: 'allowed', creator: 'allowed', runner: 'allowed', other: 'allowed' },
  'discover agents': { person: 'allowed', creator: 'allowed', runner: 'allowed', other: 'allowed' },
  // The route only: each tool is then one of the rows above, as an agent (tests/front-doors/mcp-authority.test.ts).
  'call MCP tools': { person: 'allowed', creator: 'allowed', runner: 'allowed', other: 'allowed' },
};

/** allows() beyond the common task: the cells where a task's record is missing or unusual. */
const EDGE_CASES: { why: string; action: Action; who: Identity; task?: TaskParty; allowed: boolean }[] = [
  {
    why: 'the agent running a task never answers it, even when it created the task itself',
    action: 'answer a question',
    who: { kind: 'agent', agent: 'worker' },
    task: { agent: 'worker', createdBy: 'agent:worker' },
    allowed: false,
  },
  {
    why: 'nor cancels it',
    action: 'cancel a task',
    who: { kind: 'agent', agent: 'worker' },
    task: { agent: 'worker', createdBy: 'agent:worker' },
    allowed: false,
  },
  {
    why: 'nor lists its questions',
    action: 'list open questions',
    who: { kind: 'agent', agent: 'worker' },
    task: { agent: 'worker', createdBy: 'agent:worker' },
    allowed: false,
  },
  {
    why: "a task stored before creators were recorded is the person's alone",
    action: 'cancel a task',
    who: { kind: 'agent', agent: 'boss' },
    task: { agent: 'worker' },
    allowed: false,
  },
  {
    why: 'a task stored before creators were recorded: the person may',
    action: 'cancel a task',
    who: { kind: 'person', via: 'token' },
    task: { agent: 'worker' },
    allowed: true,
  },
  {
    why: "a task the person created is not an agent's, whatever its name",
    action: 'answer a question',
    who: { kind: 'agent', agent: 'person' },
    task: { agent: 'worker', createdBy: 'person' },
    allowed: false,
  },
  {
    why: 'a creator is matched by its stored form, not by a name inside another',
    action: 'answer a question',
    who: { kind: 'agent', agent: 'boss' },
    task: { agent: 'worker', createdBy: 'agent:bossy' },
    allowed: false,
  },
  {
    why: 'no task at all: an agent may not act on it',
    action: 'answer a question',
    who: { kind: 'agent', agent: 'boss' },
    allowed: false,
  },
  {
    why: 'the person through the approval window answers',
    action: 'answer a question',
    who: { kind: 'person', via: 'approval window' },
    task: { agent: 'worker', createdBy: 'agent:boss' },
    allowed: true,
  },
  {
    why: 'the person through a notification stops the bridge',
    action: 'stop the bridge',
    who: { kind: 'person', via: 'notification' },
    allowed: true,
  },
  {
    why: 'an agent with no task in question may still send and read',
    action: 'send a task',
    who: { kind: 'agent', agent: 'stranger' },
    allowed: true,
  },
];

/** A streaming method: allowed when it answers with an event stream (read to its end), else its error. */
async function streamed(r: Running, who: Who, method: string, params: unknown, v1 = false): Promise<Verdict> {
  const res = await fetch(r.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${r.token(who)}`,
      ...(v1 ? { 'a2a-version': '1.0' } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  if (!res.headers.get('content-type')?.includes('text/event-stream')) {
    return verdictOf({ status: res.status, body: (await res.json()) as Reply['body'] });
  }
  expect(await res.text()).not.toContain('"error"');
  return 'allowed';
}

/** -32066 with a message saying who may is a refusal; a result is allowed; anything else is a test failure. */
function verdictOf(reply: Reply): Verdict {
  if (reply.body.error?.code === -32066) {
    expect(reply.body.error.message).toMatch(/may not .*only the person/);
    return 'refused';
  }
  expect(reply.body.error, JSON.stringify(reply.body.error)).toBeUndefined();
  return 'allowed';
}

/** A task `boss` created on `worker`, parked on a permission question (v0.3 resubscribe ends there). */
async function parkedTask(r: Running, creator: Who = 'creator'): Promise<string> {
  const sent = await post(r, creator, 'message/send', {
    agent: 'worker',
    text: 'permission',
    configuration: { blocking: false },
  });
  const id = sent.body.result.id as string;
  const stream = await fetch(r.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${r.token('person')}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id } }),
  });
  await stream.text(); // ends once the task is parked on its question
  expect((await post(r, 'person', 'tasks/get', { id })).body.result.status.state).toBe('input-required');
  return id;
}

const continuation03 = (taskId: string) => ({
  message: { role: 'user', messageId: crypto.randomUUID(), taskId, parts: [{ kind: 'text', text: 'allow' }] },
  configuration: { blocking: false },
});
const continuationV1 = (taskId: string) => ({
  message: { role: 'ROLE_USER', messageId: crypto.randomUUID(), taskId, parts: [{ text: 'allow' }] },
  configuration: { returnImmediately: true },
});

/** How each action is performed over HTTP; every row of the table needs one (checked below). */
const PERFORM: Record<Action, ((r: Running, who: Who) => Promise<Verdict>)[]> = {
  'answer a question': [
    async (r, who) => {
      const taskId = await parkedTask(r);
      const reply = await post(r, who, 'tasks/answer', { taskId, answer: 'allow' });
      const verdict = verdictOf(reply);
      // The record names the identity the token proved.
      if (verdict === 'allowed') expect(reply.body.result.metadata.answeredBy).toBe(label(who));
      return verdict;
    },
    async (r, who) => verdictOf(await post(r, who, 'message/send', continuation03(await parkedTask(r)))),
    async (r, who) => verdictOf(await post(r, who, 'SendMessage', continuationV1(await parkedTask(r)), true)),
    async (r, who) => streamed(r, who, 'message/stream', continuation03(await parkedTask(r))),
    async (r, who) => streamed(r, who, 'SendStreamingMessage', continuationV1(await parkedTask(r)), true),
  ],
  'cancel a task': [
    async (r, who) => verdictOf(await post(r, who, 'tasks/cancel', { id: await parkedTask(r) })),
    async (r, who) => verdictOf(await post(r, who, 'CancelTask', { id: await parkedTask(r) }, true)),
  ],
  'stop the bridge': [
    async (r, who) => {
      const before = r.shutdownAsked();
      const res = await fetch(`${r.url}/shutdown`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${r.token(who)}` },
        body: '{}',
      });
      if (res.status === 403) {
        expect(((await res.json()) as Reply['body']).error?.code).toBe(-32066);
        expect(r.shutdownAsked()).toBe(before);
        return 'refused';
      }
      expect(res.status).toBe(202);
      await res.text();
      await eventually(() => r.shutdownAsked() === before + 1, 'the shutdown request');
      return 'allowed';
    },
  ],
  'reload the config': [async (r, who) => verdictOf(await post(r, who, 'config/reload', {}))],
  'read the config': [async (r, who) => verdictOf(await post(r, who, 'config/status', {}))],
  // Filtered rather than refused: a caller sees the questions it may answer.
  'list open questions': [
    async (r, who) => {
      const taskId = await parkedTask(r);
      const reply = await post(r, who, 'pending/list', { history: 50 });
      expect(verdictOf(reply)).toBe('allowed');
      const listed = (reply.body.result.tasks as { id: string }[]).some((t) => t.id === taskId);
      const creators = (reply.body.result.tasks as { metadata: { createdBy?: string } }[]).map(
        (t) => t.metadata.createdBy,
      );
      if (who !== 'person') expect(creators.every((c) => c === 'agent:boss' && who === 'creator')).toBe(true);
      return listed ? 'allowed' : 'refused';
    },
  ],
  'follow every task': [
    async (r, who) => {
      const stop = new AbortController();
      const res = await fetch(`${r.url}/events`, {
        headers: { authorization: `Bearer ${r.token(who)}` },
        signal: stop.signal,
      });
      if (res.status === 403) {
        expect(((await res.json()) as Reply['body']).error?.code).toBe(-32066);
        return 'refused';
      }
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      stop.abort();
      return 'allowed';
    },
    // The activity view shows every task too: the same rule, through JSON-RPC.
    async (r, who) => verdictOf(await post(r, who, 'activity/snapshot', {})),
    // One task's detail, of the task `boss` created and `worker` runs: neither may follow it here.
    async (r, who) => verdictOf(await post(r, who, 'activity/task', { taskId: await parkedTask(r) })),
  ],
  'call MCP tools': [
    async (r, who) => {
      const res = await fetch(`${r.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${r.token(who)}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
        }),
      });
      await res.text();
      if (res.status === 403) return 'refused';
      expect(res.status).toBe(200);
      return 'allowed';
    },
  ],
  'send a task': [
    async (r, who) => {
      const reply = await post(r, who, 'message/send', { agent: 'helper', text: 'hi' });
      expect(reply.body.result?.status.state).toBe('completed');
      return verdictOf(reply);
    },
  ],
  'read tasks': [
    async (r, who) => verdictOf(await post(r, who, 'tasks/list', { pageSize: 5 })),
    async (r, who) => {
      const mine = await post(r, 'person', 'message/send', { agent: 'helper', text: 'the person asks' });
      return verdictOf(await post(r, who, 'tasks/get', { id: mine.body.result.id }));
    },
  ],
  'discover agents': [async (r, who) => verdictOf(await post(r, who, 'agents/list', {}))],
};

function label(who: Who): string {
  const id = IDENTITY[who];
  return id.kind === 'person' ? `person (${id.via})` : `agent ${id.agent}`;
}

function auditLines(dataDir: string): Record<string, unknown>[] {
  return readFileSync(path.join(dataDir, 'audit', 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('the authority table', () => {
  it('allows() gives the verdict SECURITY.md writes in every cell, for a task boss created and worker runs', () => {
    const task: TaskParty = { id: 't-1', agent: 'worker', createdBy: 'agent:boss' };
    expect(Object.keys(TABLE).sort()).toEqual(Object.keys(AUTHORITY).sort());
    const got = Object.fromEntries(
      (Object.keys(TABLE) as Action[]).map((action) => [
        action,
        Object.fromEntries(WHO.map((who) => [who, allows(action, IDENTITY[who], task) ? 'allowed' : 'refused'])),
      ]),
    );
    expect(got).toEqual(TABLE);
    expect(Object.keys(PERFORM).sort()).toEqual(Object.keys(AUTHORITY).sort());
  });

  it.each(EDGE_CASES)('allows(): $why', ({ action, who, task, allowed }) => {
    expect(allows(action, who, task)).toBe(allowed);
  });

  it(
    'holds in every cell over HTTP, for the person, the creating agent, the running agent and another agent',
    async () => {
      const r = await start();
      const seen: string[] = [];
      // The bridge's own stop comes last: the person's request to it is honoured.
      const actions = [
        ...(Object.keys(AUTHORITY) as Action[]).filter((a) => a !== 'stop the bridge'),
        'stop the bridge' as const,
      ];
      for (const action of actions) {
        for (const who of WHO) {
          const expected = TABLE[action][who];
          for (const [route, perform] of PERFORM[action].entries()) {
            seen.push(`${action} #${route} by ${who}: ${await perform(r, who)} (table: ${expected})`);
          }
        }
      }
      const wrong = seen.filter((line) => {
        const [, got, want] = /: (\w+) \(table: (\w+)\)$/.exec(line)!;
        return got !== want;
      });
      expect(wrong).toEqual([]);
      // Spelled out for the cells that matter most.
      for (const route of [0, 1, 2, 3, 4])
        expect(seen).toContain(`answer a question #${route} by runner: refused (table: refused)`);
      expect(seen).toContain('answer a question #0 by creator: allowed (table: allowed)');
      expect(seen).toContain('cancel a task #0 by other: refused (table: refused)');
      expect(seen).toContain('stop the bridge #0 by runner: refused (table: refused)');

      // The audit log records the identity each token proved: the person or the creating agent, nobody else.
      await r.bridge.stop();
      const lines = auditLines(r.dataDir);
      const answeredBy = new Set(lines.filter((l) => l.type === 'task.answered').map((l) => l.by));
      expect([...answeredBy].sort()).toEqual(['agent boss', 'person (token)']);
      const created = lines.filter((l) => l.type === 'task.created' && l.agent === 'worker');
      expect(created.length).toBeGreaterThan(0);
      expect(created.every((l) => l.createdBy === 'agent:boss')).toBe(true);
    },
    TEST_MS,
  );

  it('keeps a name the person gives as a label beside the proof, and refuses one from an agent', async () => {
    const r = await start();
    const mine = await parkedTask(r, 'person');
    const named = await post(r, 'person', 'tasks/answer', { taskId: mine, answer: 'reject', answeredBy: 'Ana' });
    expect(named.body.result.metadata.answeredBy).toBe('person (token: Ana)');
    const theirs = await parkedTask(r);
    const forged = await post(r, 'creator', 'tasks/answer', {
      taskId: theirs,
      answer: 'allow',
      answeredBy: 'person (approval window)',
    });
    expect(forged.body.error?.code).toBe(-32066);
    expect(forged.body.error?.message).toContain('answeredBy is not accepted');
    // The creator may still answer, as itself.
    const plain = await post(r, 'creator', 'tasks/answer', { taskId: theirs, answer: 'allow' });
    expect(plain.body.result.metadata.answeredBy).toBe('agent boss');
  });
});

describe('pending/list with its history, from an agent token', () => {
  it(
    "lists only the questions of the tasks that agent created: never those it runs, another agent's or the person's",
    async () => {
      const r = await start();
      // Each creator's task on worker asks a question the person answers (the history), and another stays open.
      const answered = { creator: await parkedTask(r, 'creator'), other: await parkedTask(r, 'other') };
      const persons = await parkedTask(r, 'person');
      for (const taskId of [answered.creator, answered.other, persons]) {
        expect((await post(r, 'person', 'tasks/answer', { taskId, answer: 'allow' })).body.error).toBeUndefined();
      }
      const open = { creator: await parkedTask(r, 'creator'), other: await parkedTask(r, 'other') };
      const listed = async (who: Who) => {
        const reply = await post(r, who, 'pending/list', { history: 50 });
        expect(reply.body.error).toBeUndefined();
        return {
          tasks: (reply.body.result.tasks as { id: string }[]).map((t) => t.id).sort(),
          history: [...new Set((reply.body.result.history as { taskId: string }[]).map((q) => q.taskId))].sort(),
        };
      };
      await eventually(
        async () => (await listed('person')).history.length === 3,
        'the three answered questions in the history',
      );
      expect(await listed('creator')).toEqual({ tasks: [open.creator], history: [answered.creator] });
      expect(await listed('other')).toEqual({ tasks: [open.other], history: [answered.other] });
      // worker runs every one of these tasks and created none.
      expect(await listed('runner')).toEqual({ tasks: [], history: [] });
      expect(await listed('person')).toEqual({
        tasks: [open.creator, open.other].sort(),
        history: [answered.creator, answered.other, persons].sort(),
      });
    },
    TEST_MS,
  );
});

describe("pending/list's history limit, from an agent token", () => {
  it(
    "counts that agent's own questions: newer questions of other callers' tasks never crowd them out",
    async () => {
      const r = await start();
      // boss's two questions are answered first; then a newer one on a task of stranger's and one of the person's.
      const order = ['creator', 'creator', 'other', 'person'] as const;
      const answered: string[] = [];
      for (const creator of order) {
        const taskId = await parkedTask(r, creator);
        expect((await post(r, 'person', 'tasks/answer', { taskId, answer: 'allow' })).body.error).toBeUndefined();
        answered.push(taskId);
      }
      const [boss1, boss2, strangers, persons] = answered as [string, string, string, string];
      const history = async (who: Who, n: number) => {
        const reply = await post(r, who, 'pending/list', { history: n });
        expect(reply.body.error).toBeUndefined();
        return (reply.body.result.history as { taskId: string }[]).map((q) => q.taskId);
      };
      await eventually(async () => (await history('person', 50)).length === 4, 'the four answered questions');
      // Newest first, literal: the two latest bridge-wide are not boss's, yet boss gets two of its own.
      expect(await history('person', 2)).toEqual([persons, strangers]);
      expect(await history('creator', 2)).toEqual([boss2, boss1]);
      expect(await history('creator', 1)).toEqual([boss2]);
      expect(await history('other', 1)).toEqual([strangers]);
      expect(await history('runner', 2)).toEqual([]);
    },
    TEST_MS,
  );
});

describe('an ACP agent approving its own permission request', () => {
  it(
    'is refused by tasks/answer and by the v0.3 and v1 continuations; the tool never runs and the audit names the person',
    async () => {
      const r = await start();
      const evidence = path.join(r.dir, 'self-approve.json');
      const sent = await post(r, 'person', 'message/send', {
        agent: 'worker',
        text: `self-approve ${evidence}`,
        configuration: { blocking: false },
      });
      const taskId = sent.body.result.id as string;
      await eventually(() => existsSync(evidence), 'the evidence file of the tool');
      const { said } = JSON.parse(readFileSync(evidence, 'utf8')) as {
        said: Record<string, { error?: { code: number; message: string } }>;
      };
      for (const route of ['answer', 'answerPlain', 'v03', 'v1']) {
        expect(said[route]?.error?.code, `${route}: ${JSON.stringify(said[route])}`).toBe(-32066);
      }
      expect(said.answer!.error!.message).toContain('agent worker');

      // The person decides.
      const answered = await post(r, 'person', 'tasks/answer', { taskId, answer: 'reject' });
      expect(answered.body.error).toBeUndefined();
      const stream = await fetch(r.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${r.token('person')}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: taskId } }),
      });
      await stream.text();
      const done = (await post(r, 'person', 'tasks/get', { id: taskId })).body.result;
      expect(done.status.state).toBe('completed');
      expect(JSON.stringify(done.artifacts)).toContain('outcome=reject');
      expect(existsSync(`${evidence}.ran`)).toBe(false);

      await r.bridge.stop();
      const answers = auditLines(r.dataDir).filter((l) => l.type === 'task.answered' && l.taskId === taskId);
      expect(answers).toEqual([expect.objectContaining({ by: 'person (token)', answer: 'reject' })]);
      // Each attempt is on record, under the identity its token proved.
      const refused = auditLines(r.dataDir).filter((l) => l.type === 'request.refused' && l.caller === 'agent worker');
      expect(refused.map((l) => l.reason).sort()).toEqual([
        'not-permitted: SendMessage',
        'not-permitted: message/send',
        'not-permitted: tasks/answer',
        'not-permitted: tasks/answer',
      ]);
    },
    TEST_MS,
  );
});
