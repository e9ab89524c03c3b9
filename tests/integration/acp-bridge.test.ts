/**
 * The ACP path end to end: a real bridge, a fake ACP agent (SDK agent side) as a child process, and the
 * permission → input-required → answer round trip over HTTP, including a restart while it waits, and a
 * decision answered after the agent's process idled out.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestBridge, type RpcResponse, type TestBridge } from '../helpers/bridge.js';
import { eventually, waitForState } from '../helpers/wait.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

const FAKE_AGENT = path.join(REPO_ROOT, 'tests', 'fixtures', 'acp', 'fake-agent.mjs');
const acpAgent = {
  kind: 'acp',
  command: [process.execPath, FAKE_AGENT],
  timeout_s: TEST_TIMEOUT_MS / 1000,
  append_decision_contract: false,
};

let bridges: TestBridge[] = [];
afterEach(async () => {
  await Promise.all(bridges.map((b) => b.cleanup()));
  bridges = [];
});

async function start(opts: Parameters<typeof startTestBridge>[0] = {}): Promise<TestBridge> {
  const b = await startTestBridge({ agents: { fake: acpAgent }, ...opts });
  bridges.push(b);
  return b;
}

describe('ACP agent through the bridge', () => {
  it('completes a text turn and says it streams on its card', async () => {
    const b = await start();
    const sent = await b.rpc('message/send', { agent: 'fake', text: 'echo hello bridge' });
    expect(sent.result.status.state).toBe('completed');
    expect(sent.result.artifacts[0].parts[0].text).toContain('echo: hello bridge');
    expect(sent.result.metadata.receipt).toMatchObject({ actualForm: 'acp' });
    const card = await b.rpc('agents/card', { agent: 'fake' });
    expect(card.result.capabilities.extensions[0].params).toMatchObject({
      inputRequired: true,
      interruptible: true,
      backend: 'acp',
    });
  });

  it('turns a permission request into input-required and continues on "yes"', async () => {
    const b = await start();
    const sent = await b.rpc('message/send', { agent: 'fake', text: 'permission' });
    expect(sent.result.status.state).toBe('input-required');
    const pending = sent.result.metadata.pending;
    expect(pending.kind).toBe('permission');
    expect(pending.options.map((o: { optionId: string }) => o.optionId)).toEqual(['allow', 'reject']);
    expect(sent.result.status.message.parts[0].text).toContain('asks permission');

    const listed = await b.rpc('pending/list', {});
    expect(listed.result.tasks.map((t: { id: string }) => t.id)).toContain(sent.result.id);

    const answered = await b.rpc('tasks/answer', { taskId: sent.result.id, answer: 'yes' });
    expect(answered.result.status.state).toBe('working');
    const done = await waitForState(b, sent.result.id, 'completed');
    expect(done.metadata.pending).toBeUndefined();
    expect(done.metadata.answeredBy).toBe('person (token)');

    const again = await b.rpc('tasks/answer', { taskId: sent.result.id, answer: 'no' });
    expect(again.error?.code).toBe(-32062);

    const history = await b.rpc('pending/list', { history: 10 });
    expect(history.result.history[0]).toMatchObject({
      taskId: sent.result.id,
      kind: 'permission',
      outcome: 'answered',
      answer: 'allow',
      by: 'person (token)',
    });
  });

  it('lets a standing rule decide, matched on the tool kind, and records which rule', async () => {
    const b = await start({
      agents: {
        fake: {
          ...acpAgent,
          approval_rules: [
            { action: 'deny', command: 'rm' },
            { action: 'allow', kinds: ['edit'] },
          ],
        },
      },
    });
    const sent = await b.rpc('message/send', { agent: 'fake', text: 'permission' });
    expect(sent.result.status.state).toBe('completed');
    expect(sent.result.metadata.questions).toEqual([
      expect.objectContaining({ kind: 'permission', outcome: 'auto-decided', answer: 'allow', rule: 1 }),
    ]);
  });

  it('rejects an answer that matches no option with the valid answers', async () => {
    const b = await start();
    const sent = await b.rpc('message/send', { agent: 'fake', text: 'permission' });
    const bad = await b.rpc('tasks/answer', { taskId: sent.result.id, answer: 'perhaps' });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toContain('allow');
    await b.rpc('tasks/cancel', { id: sent.result.id });
  });

  it('after a restart, a permission the agent cannot take back fails with the reason and is not offered', async () => {
    const first = await start();
    const sent = await first.rpc('message/send', { agent: 'fake', text: 'permission' });
    expect(sent.result.status.state).toBe('input-required');
    await first.stop();

    const second = await start({ dataDir: first.dataDir });
    const got = await second.rpc('tasks/get', { id: sent.result.id });
    expect(got.result.status.state).toBe('failed');
    expect(got.result.metadata.retryable).toBe(true);
    expect(got.result.status.message.parts[0].text).toMatch(
      /^the bridge restarted while this task waited for permission \(.+\), and the agent cannot take its request back up; re-send it under a new messageId$/,
    );
    const listed = await second.rpc('pending/list', {});
    expect(listed.result.tasks.map((t: { id: string }) => t.id)).not.toContain(sent.result.id);
    const answer = await second.rpc('tasks/answer', { taskId: sent.result.id, answer: 'yes' });
    expect(answer.error?.message).toContain('not waiting for an answer');
  });
});

describe('a decision answered after the agent idled out', () => {
  const deciding = { ...acpAgent, append_decision_contract: true };

  async function decide(b: TestBridge): Promise<RpcResponse['result']> {
    const sent = await b.rpc('message/send', { agent: 'fake', text: 'decide the settings format' });
    expect(sent.result.status.state).toBe('input-required');
    expect(sent.result.metadata.pending).toMatchObject({ kind: 'decision', options: ['YAML', 'TOML'] });
    return sent.result;
  }

  const lastReply = (task: RpcResponse['result']): string =>
    task.artifacts
      .at(-1)
      .parts.map((p: { text: string }) => p.text)
      .join('');

  it('goes to a fresh session with the whole request again, so the agent knows what the choice is for', async () => {
    const b = await start({ agents: { fake: { ...deciding, idle_timeout_s: 0.2 } } });
    const first = await decide(b);
    const pid = first.metadata.receipt.pid as number;
    await eventually(() => !isRunning(pid), 'the idle agent to be stopped');

    await b.rpc('tasks/answer', { taskId: first.id, answer: 'TOML' });
    const done = await waitForState(b, first.id, 'completed');
    // "decide …" reached the new process again, with the answer: it went on instead of echoing.
    expect(lastReply(done)).toBe('going with TOML');
    expect(done.metadata.receipt.earlierSessionLost).toBe(true);
    expect(done.metadata.receipt.pid).not.toBe(pid);
  });

  it('while the session lives, only the choice is sent: the agent remembers the rest', async () => {
    const b = await start({ agents: { fake: deciding } });
    const first = await decide(b);
    await b.rpc('tasks/answer', { taskId: first.id, answer: 'TOML' });
    const done = await waitForState(b, first.id, 'completed');
    expect(lastReply(done)).toMatch(/^echo: You asked: .*\nThe requester chose: TOML\n/s);
    expect(done.metadata.receipt.sessionReused).toBe(true);
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
