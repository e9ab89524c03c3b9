/**
 * The seed's semantics end to end over real HTTP with real child processes: the failure taxonomy,
 * messageId idempotency, loop guards and the decision flow (docs/contract.md#sending-a-message,
 * docs/contract.md#pending-questions).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning, pidFrom } from '../fixtures/cli/processes.js';
import { eventually } from '../helpers/wait.js';
import { runsWith, uniquePrompt } from './agent-runs.js';
import { waitForState } from '../helpers/wait.js';
import { echoAgent, fixtureAgent, integrationAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { ManualTimers } from '../helpers/manual-timers.js';

let tb: TestBridge;
let scratch: string;
/** The bridge's turn timeouts run on this: `sleepy` times out when the test moves it, once its tree is up. */
const clock = new ManualTimers();

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'contactor-semantics-'));
  tb = await startTestBridge({
    agents: {
      echo: echoAgent(),
      failing: fixtureAgent('exit-code.mjs', { prompt_via: 'arg', prompt_flag: ['3', 'first line', 'disk on fire'] }),
      sleepy: fixtureAgent('sleeper.mjs', {
        prompt_via: 'arg',
        prompt_flag: ['--grandchild', '--pid-file', path.join(scratch, 'sleeper.pid')],
        timeout_s: 1,
      }),
      silent: fixtureAgent('silent.mjs'),
      counter: integrationAgent('counter.mjs', [path.join(scratch, 'runs.txt')]),
    },
    timers: clock,
  });
});
afterAll(async () => {
  await tb.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe('failure taxonomy', () => {
  it('a non-zero exit fails, not retryable, with the exit code and the stderr tail', async () => {
    const { result: task } = await tb.rpc('message/send', { agent: 'failing', text: 'go' });
    expect(task.status.state).toBe('failed');
    expect(task.metadata).toMatchObject({ retryable: false, exitCode: 3 });
    const status = task.status.message.parts[0].text as string;
    expect(status).toContain('code 3');
    expect(status).toContain('disk on fire');
  });

  it('a timeout fails, retryable, and the whole process tree is gone', async () => {
    const sending = tb.rpc('message/send', { agent: 'sleepy', text: 'never ends' });
    const parent = await pidFrom(path.join(scratch, 'sleeper.pid'));
    const grandchild = await pidFrom(path.join(scratch, 'sleeper.pid.gc'));
    clock.advanceBy(1000); // its timeout_s
    const { result: task } = await sending;
    expect(task.status.state).toBe('failed');
    expect(task.metadata.retryable).toBe(true);
    expect(task.metadata.receipt.pid).toBe(parent);
    await eventually(() => !isRunning(parent) && !isRunning(grandchild));
  });

  it('exit 0 with no output completes with a warning', async () => {
    const { result: task } = await tb.rpc('message/send', { agent: 'silent', text: 'say nothing' });
    expect(task.status.state).toBe('completed');
    expect(task.metadata.warning).toMatch(/without any output/);
  });
});

describe('messageId idempotency', () => {
  /** Runs of the counter agent with this prompt (each test sends prompts of its own). */
  const runs = (prompt: string) => runsWith(path.join(scratch, 'runs.txt'), prompt);

  it('the same messageId returns the same task without running the agent again', async () => {
    const messageId = crypto.randomUUID();
    const text = uniquePrompt('count me');
    const first = await tb.rpc('message/send', { agent: 'counter', text, messageId });
    expect(first.result.status.state).toBe('completed');
    expect(runs(text)).toBe(1);
    const second = await tb.rpc('message/send', { agent: 'counter', text, messageId });
    expect(second.result.id).toBe(first.result.id);
    expect(second.result.artifacts).toEqual(first.result.artifacts);
    expect(runs(text)).toBe(1);
  });

  it('holds for the standard form too', async () => {
    const text = uniquePrompt('standard');
    const message = { role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text }] };
    const first = await tb.rpc('message/send', { message }, { path: '/agents/counter' });
    expect(runs(text)).toBe(1);
    const second = await tb.rpc('message/send', { message }, { path: '/agents/counter' });
    expect(second.result.id).toBe(first.result.id);
    expect(runs(text)).toBe(1);
  });

  it('the same messageId with a different payload is a conflict (-32061) and runs nothing', async () => {
    const messageId = crypto.randomUUID();
    const one = uniquePrompt('one thing');
    const another = uniquePrompt('another thing');
    const first = await tb.rpc('message/send', { agent: 'counter', text: one, messageId });
    const res = await tb.rpc('message/send', { agent: 'counter', text: another, messageId });
    expect(res.error?.code).toBe(-32061);
    expect(res.error?.message).toContain(first.result.id);
    expect(runs(one)).toBe(1);
    expect(runs(another)).toBe(0);
  });
});

describe('messageId idempotency over files', () => {
  const runs = (prompt: string) => runsWith(path.join(scratch, 'runs.txt'), prompt);
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const v03 = (messageId: string, text: string, file: Record<string, unknown>) => ({
    message: {
      kind: 'message',
      role: 'user',
      messageId,
      parts: [
        { kind: 'text', text },
        { kind: 'file', file },
      ],
    },
  });
  const v1 = (messageId: string, text: string, file: Record<string, unknown>) => ({
    message: { role: 'ROLE_USER', messageId, parts: [{ text }, file] },
  });
  const shorthand = (messageId: string, text: string, files?: Record<string, unknown>[]) => ({
    agent: 'counter',
    text,
    messageId,
    ...(files ? { files } : {}),
  });

  /** Two sends of one messageId with the same text: `first`, then `second` with another file (or none). */
  const CASES: {
    form: string;
    method: string;
    version?: string;
    path?: string;
    first: (messageId: string, text: string) => unknown;
    second: (messageId: string, text: string) => unknown;
  }[] = [
    {
      form: 'shorthand files, other bytes',
      method: 'message/send',
      first: (id, text) => shorthand(id, text, [{ name: 'notes.txt', mimeType: 'text/plain', bytes: b64('first') }]),
      second: (id, text) => shorthand(id, text, [{ name: 'notes.txt', mimeType: 'text/plain', bytes: b64('second') }]),
    },
    {
      form: 'shorthand files, the file left out',
      method: 'message/send',
      first: (id, text) => shorthand(id, text, [{ name: 'notes.txt', bytes: b64('first') }]),
      second: (id, text) => shorthand(id, text),
    },
    {
      form: 'v0.3 FilePart with bytes',
      method: 'message/send',
      path: '/agents/counter',
      first: (id, text) => v03(id, text, { name: 'a.txt', mimeType: 'text/plain', bytes: b64('first') }),
      second: (id, text) => v03(id, text, { name: 'a.txt', mimeType: 'text/plain', bytes: b64('second') }),
    },
    {
      form: 'v0.3 FilePart with uri',
      method: 'message/send',
      path: '/agents/counter',
      first: (id, text) => v03(id, text, { name: 'a.txt', uri: 'https://files.example/first.txt' }),
      second: (id, text) => v03(id, text, { name: 'a.txt', uri: 'https://files.example/second.txt' }),
    },
    {
      form: 'v1 file part with raw bytes',
      method: 'SendMessage',
      version: '1.0',
      path: '/agents/counter',
      first: (id, text) => v1(id, text, { raw: b64('first'), mediaType: 'text/plain', filename: 'a.txt' }),
      second: (id, text) => v1(id, text, { raw: b64('second'), mediaType: 'text/plain', filename: 'a.txt' }),
    },
    {
      form: 'v1 file part with url',
      method: 'SendMessage',
      version: '1.0',
      path: '/agents/counter',
      first: (id, text) => v1(id, text, { url: 'https://files.example/first.txt', filename: 'a.txt' }),
      second: (id, text) => v1(id, text, { url: 'https://files.example/second.txt', filename: 'a.txt' }),
    },
  ];

  it.each(CASES)('$form: the same text with another file is a conflict (-32061) and runs once', async (c) => {
    const messageId = crypto.randomUUID();
    const text = uniquePrompt(c.form);
    const headers: Record<string, string> = c.version ? { 'A2A-Version': c.version } : {};
    const opts = { ...(c.path ? { path: c.path } : {}), headers };
    const first = await tb.rpc(c.method, c.first(messageId, text), opts);
    expect(first.error, JSON.stringify(first.error)).toBeUndefined();
    const firstId = (c.version === '1.0' ? first.result.task.id : first.result.id) as string;
    expect(runs(text)).toBe(1);
    // The very same send again is a replay: the same task, no second run.
    const replay = await tb.rpc(c.method, c.first(messageId, text), opts);
    expect(c.version === '1.0' ? replay.result.task.id : replay.result.id).toBe(firstId);
    const conflict = await tb.rpc(c.method, c.second(messageId, text), opts);
    expect(conflict.error?.code, JSON.stringify(conflict.result ?? conflict.error)).toBe(-32061);
    expect(conflict.error?.message).toContain(firstId);
    expect(runs(text)).toBe(1);
  });
});

describe('loop guards', () => {
  it('rejects a task whose target is already in visitedAgents, and runs nothing', async () => {
    const text = uniquePrompt('loop');
    const { result: task } = await tb.rpc('message/send', {
      agent: 'counter',
      text,
      visitedAgents: ['echo', 'counter'],
    });
    expect(task.status.state).toBe('rejected');
    expect(task.status.message.parts[0].text).toMatch(/counter/);
    expect(runsWith(path.join(scratch, 'runs.txt'), text)).toBe(0);
    const stored = await tb.rpc('tasks/get', { id: task.id });
    expect(stored.result.status.state).toBe('rejected');
  });

  it('rejects a task at the depth limit (delegationDepth 3 with the default max 3)', async () => {
    const { result: task } = await tb.rpc('message/send', { agent: 'echo', text: 'deep', delegationDepth: 3 });
    expect(task.status.state).toBe('rejected');
    expect(task.status.message.parts[0].text).toMatch(/depth/i);
  });

  it('reads the guards from metadata in the standard form', async () => {
    const { result: task } = await tb.rpc('message/send', {
      message: { role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text: 'x' }] },
      metadata: { agent: 'echo', visitedAgents: ['echo'] },
    });
    expect(task.status.state).toBe('rejected');
  });

  it('passes a task below the limit and records the chain', async () => {
    const { result: task } = await tb.rpc('message/send', {
      agent: 'echo',
      text: 'fine',
      delegationDepth: 1,
      visitedAgents: ['counter'],
    });
    expect(task.status.state).toBe('completed');
    expect(task.metadata.visitedAgents).toEqual(['counter', 'echo']);
    expect(task.metadata.delegationDepth).toBeGreaterThanOrEqual(1);
  });
});

describe('decision flow', () => {
  it('parks on a decision, then an answer by number completes the task', async () => {
    const { result: asked } = await tb.rpc('message/send', { agent: 'echo', text: 'decide: YAML|TOML' });
    expect(asked.status.state).toBe('input-required');
    expect(asked.metadata.pending).toMatchObject({ kind: 'decision', options: ['YAML', 'TOML'], recommend: 'YAML' });
    const pending = await tb.rpc('pending/list', {});
    expect(pending.result.tasks.map((t: { id: string }) => t.id)).toContain(asked.id);

    const answered = await tb.rpc('tasks/answer', { taskId: asked.id, answer: '2' });
    expect(answered.error).toBeUndefined();
    const task = await waitForState(tb, asked.id, ['completed', 'failed']);
    expect(task.status.state).toBe('completed');
    expect(JSON.stringify(task.artifacts)).toContain('Going with TOML');
    expect(task.metadata.pending).toBeUndefined();

    const twice = await tb.rpc('tasks/answer', { taskId: asked.id, answer: '1' });
    expect(twice.error?.code).toBe(-32062);
  });

  it('after a decision the task carries one reply artifact, the final answer (v0.3 and v1 shapes)', async () => {
    const { result: asked } = await tb.rpc('message/send', { agent: 'echo', text: 'decide: red|blue' });
    expect(asked.status.state).toBe('input-required');
    // The question lives in status.message and metadata: no artifact holds the [[NEEDS_DECISION]] block.
    expect(asked.artifacts ?? []).toEqual([]);
    expect(JSON.stringify(asked.status.message)).toContain('red or blue');
    await tb.rpc('tasks/answer', { taskId: asked.id, answer: 'blue' });
    const task = await waitForState(tb, asked.id, ['completed', 'failed']);
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]).toMatchObject({
      name: 'reply',
      parts: [{ kind: 'text', text: 'Going with blue. Done.\n' }],
    });
    expect(JSON.stringify(task.artifacts)).not.toContain('[[NEEDS_DECISION]]');

    const v1 = await tb.rpc('GetTask', { id: asked.id }, { headers: { 'A2A-Version': '1.0' } });
    expect(v1.result.artifacts).toHaveLength(1);
    expect(v1.result.artifacts[0].parts).toEqual([{ text: 'Going with blue. Done.\n' }]);
  });
});

describe('an over-size request', () => {
  it('is refused with 413 and a message that names the setting (max_body_bytes)', async () => {
    const res = await fetch(`${tb.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { agent: 'echo', text: 'x'.repeat(1_100_000) },
      }),
    });
    expect(res.status).toBe(413);
    const reply = (await res.json()) as { error: { code: number; message: string } };
    expect(reply.error.code).toBe(-32600);
    expect(reply.error.message).toContain('over the 1048576-byte limit (max_body_bytes in config.yaml)');
  });
});

describe('cancel over HTTP', () => {
  it('cancels a running task: canceled, the agent process is gone, a second cancel is -32002', async () => {
    const gate = path.join(scratch, 'never-opened');
    const own = await startTestBridge({ agents: { gated: integrationAgent('gate.mjs', [gate]) } });
    try {
      const { result } = await own.rpc('message/send', {
        agent: 'gated',
        text: 'hold',
        configuration: { blocking: false },
      });
      const working = await waitForState(own, result.id, ['working']);
      const pid = await waitForReceiptPid(own, result.id, working);
      const canceled = await own.rpc('tasks/cancel', { id: result.id });
      expect(canceled.result.status.state).toBe('canceled');
      await eventually(() => !isRunning(pid));
      expect((await own.rpc('tasks/get', { id: result.id })).result.status.state).toBe('canceled');
      expect((await own.rpc('tasks/cancel', { id: result.id })).error?.code).toBe(-32002);
    } finally {
      await own.cleanup();
    }
  });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function waitForReceiptPid(own: TestBridge, id: string, task: any): Promise<number> {
  for (let current = task; ; current = (await own.rpc('tasks/get', { id })).result) {
    if (typeof current.metadata.receipt?.pid === 'number') return current.metadata.receipt.pid;
    await new Promise((r) => setTimeout(r, 20));
  }
}
