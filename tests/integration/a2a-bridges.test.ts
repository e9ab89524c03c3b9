/**
 * Two real bridges talking A2A to each other: bridge A's `a2a` agents point at bridge B's per-agent
 * endpoints. Covers the reply crossing the hop, a decision passed through both ways, a forwarded
 * cancel, and the A→B→A delegation loop being rejected instead of hanging.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSdkEchoServer } from '../fixtures/a2a/sdk-echo-server.js';
import { echoAgent, nodeScriptAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

/** The parts of a task (as JSON) these tests read. */
interface TaskJson {
  id: string;
  status: { state: string; message?: { parts: { text?: string }[] } };
  artifacts?: { artifactId: string; parts: { text?: string }[] }[];
  metadata: Record<string, unknown>;
}

interface TraitsExtension {
  uri: string;
  params: Record<string, unknown>;
}

function traitsOf(card: { capabilities: { extensions: TraitsExtension[] } }): Record<string, unknown> | undefined {
  return card.capabilities.extensions.find((e) => e.uri === 'urn:contactor:agent-traits:v1')?.params;
}

const sleeperAgent = () => nodeScriptAgent('tests/fixtures/cli/sleeper.mjs');

type Bridge = TestBridge;
const opened: TestBridge[] = [];
const envNames: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((b) => b.cleanup()));
  for (const name of envNames.splice(0)) delete process.env[name];
});

async function bridge(agents: Record<string, Record<string, unknown>>, port = 0): Promise<Bridge> {
  const tb = await startTestBridge({ agents, port });
  opened.push(tb);
  return tb;
}

/** The peer's token is handed over the way a user would: an environment variable named in config. */
function exportToken(name: string, token: string): void {
  process.env[name] = token;
  envNames.push(name);
}

function remote(url: string, tokenEnv: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { kind: 'a2a', url, token_env: tokenEnv, timeout_s: TEST_TIMEOUT_MS / 1000, ...extra };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function settled(tb: Bridge, taskId: string, states: string[]): Promise<TaskJson> {
  let task: TaskJson | undefined;
  await expect
    .poll(
      async () => {
        task = (await tb.rpc('tasks/get', { id: taskId })).result;
        return states.includes(task?.status.state ?? '');
      },
      { timeout: TEST_TIMEOUT_MS, interval: 50 },
    )
    .toBe(true);
  return task!;
}

function replyText(task: TaskJson): string {
  return (task.artifacts ?? [])
    .flatMap((a) => a.parts)
    .map((p) => p.text ?? '')
    .join('');
}

describe('a2a backend between two contactor bridges', () => {
  it("sends through A's a2a agent to B's echo and brings the reply back", async () => {
    const b = await bridge({ echo: echoAgent() });
    exportToken('CONTACTOR_TEST_B_TOKEN', b.token);
    const a = await bridge({ viaB: remote(`${b.url}/agents/echo`, 'CONTACTOR_TEST_B_TOKEN') });

    const res = await a.rpc('message/send', { agent: 'viaB', text: 'hello over the hop' });
    expect(res.error).toBeUndefined();
    expect(res.result.status.state).toBe('completed');
    expect(replyText(res.result).trim()).toBe('echo: hello over the hop');
    expect(res.result.metadata.receipt).toMatchObject({
      executionForm: 'a2a',
      peerProtocol: '1.0',
      peerState: 'completed',
    });

    // B saw the hop as a delegation: depth 1, A's agent in the chain.
    const onB = (await b.rpc('tasks/list', { agent: 'echo' })).result.tasks[0];
    expect(onB.metadata).toMatchObject({ delegationDepth: 1, visitedAgents: ['viaB', 'echo'] });

    // A's card inherits what B's card declares for its echo agent (its traits extension and its words),
    // in both card versions.
    const bCard = (await b.rpc('agents/card', { agent: 'echo' })).result;
    for (const version of ['1.0', '0.3']) {
      const res = await fetch(`${a.url}/agents/viaB/.well-known/agent-card.json`, {
        headers: { 'A2A-Version': version },
      });
      const card = (await res.json()) as { description: string; capabilities: { extensions: TraitsExtension[] } };
      expect(traitsOf(card)).toEqual({ ...traitsOf(bCard), backend: 'a2a' });
      expect(card.description).toContain(`its own card says: "${bCard.description.slice(0, 80)}`);
    }
  });

  it("an a2a agent's card derives its traits from a peer card without contactor's extension, and says what is unknown", async () => {
    const peer = await startSdkEchoServer({ protocol: '1.0', streaming: false });
    try {
      const a = await bridge({ plain: { kind: 'a2a', url: peer.url, timeout_s: TEST_TIMEOUT_MS / 1000 } });
      expect((await a.rpc('message/send', { agent: 'plain', text: 'hi' })).result.status.state).toBe('completed');
      const card = (await a.rpc('agents/card', { agent: 'plain' })).result;
      expect(traitsOf(card)).toEqual({
        backend: 'a2a',
        inputRequired: false,
        interruptible: true,
        multiTurn: false,
        contentVerified: false,
      });
      expect(card.description).toContain('no streaming');
      expect(card.description).toContain('does not say whether it remembers a conversation');
    } finally {
      await peer.close();
    }
  });

  it("passes B's decision through to A's task, and A's answer back to B's task", async () => {
    const b = await bridge({ echo: echoAgent() });
    exportToken('CONTACTOR_TEST_B_TOKEN', b.token);
    const a = await bridge({ viaB: remote(`${b.url}/agents/echo`, 'CONTACTOR_TEST_B_TOKEN') });

    const sent = await a.rpc('message/send', { agent: 'viaB', text: 'decide: red|blue' });
    expect(sent.result.status.state).toBe('input-required');
    expect(sent.result.metadata.pending).toMatchObject({
      kind: 'decision',
      options: ['red', 'blue'],
      recommend: 'red',
    });
    const peerTaskId = sent.result.metadata.receipt.peerTaskId;
    const onBAsking = (await b.rpc('tasks/get', { id: peerTaskId })).result;
    expect(onBAsking.status.state).toBe('input-required');
    // A peer bridge adds its own decision contract: A sends the brief as written.
    expect(JSON.stringify(onBAsking.history[0].parts)).not.toContain('[[NEEDS_DECISION]]');

    await a.rpc('tasks/answer', { taskId: sent.result.id, answer: 'blue' });
    const done = await settled(a, sent.result.id, ['completed', 'failed']);
    expect(done.status, JSON.stringify(done.status)).toMatchObject({ state: 'completed' });
    expect(replyText(done), JSON.stringify(done.artifacts)).toContain('Going with blue. Done.');
    const onB = (await b.rpc('tasks/get', { id: peerTaskId })).result;
    expect(onB.status.state).toBe('completed');
    expect(onB.metadata.lastAnswer).toMatchObject({ choice: 'blue', freeText: false });
  });

  it("forwards a cancel of A's task to B's task", async () => {
    const b = await bridge({ sleeper: sleeperAgent() });
    exportToken('CONTACTOR_TEST_B_TOKEN', b.token);
    const a = await bridge({ viaB: remote(`${b.url}/agents/sleeper`, 'CONTACTOR_TEST_B_TOKEN') });

    const sent = await a.rpc('message/send', {
      agent: 'viaB',
      text: 'sleep please',
      configuration: { blocking: false },
    });
    let peerTaskId: string | undefined;
    await expect
      .poll(
        async () =>
          (peerTaskId = (await a.rpc('tasks/get', { id: sent.result.id })).result.metadata.receipt?.peerTaskId),
        { timeout: TEST_TIMEOUT_MS },
      )
      .toBeTruthy();
    await a.rpc('tasks/cancel', { id: sent.result.id });
    const onB = await settled(b, peerTaskId!, ['canceled', 'completed', 'failed']);
    expect(onB.status.state).toBe('canceled');
  });

  it('rejects the A→B→A loop across two bridges instead of hanging', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const a = await bridge({ toB: remote(`http://127.0.0.1:${portB}/agents/toA`, 'CONTACTOR_TEST_B_TOKEN') }, portA);
    const b = await bridge({ toA: remote(`http://127.0.0.1:${portA}/agents/toB`, 'CONTACTOR_TEST_A_TOKEN') }, portB);
    exportToken('CONTACTOR_TEST_A_TOKEN', a.token);
    exportToken('CONTACTOR_TEST_B_TOKEN', b.token);

    const res = await a.rpc('message/send', { agent: 'toB', text: 'go around' });
    expect(res.result.status.state).toBe('failed');
    const reason = res.result.status.message.parts[0].text as string;
    expect(reason).toMatch(/delegation loop: "toB" is already in this chain/);
    expect(res.result.metadata.retryable).toBe(false);
    // The inner hop ended as a rejected task on A, auditable like any other.
    const rejected = (await a.rpc('tasks/list', { agent: 'toB', status: 'rejected' })).result.tasks;
    expect(rejected).toHaveLength(1);
    expect(rejected[0].metadata).toMatchObject({ delegationDepth: 2, visitedAgents: ['toB', 'toA'] });
  });
});
