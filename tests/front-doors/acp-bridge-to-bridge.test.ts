/**
 * contactor through contactor: a bridge whose `acp` agent runs `contactor acp` of another bridge reaches that
 * bridge's agents, an approval travels back to the person at the first bridge, and the loop guards hold
 * across the two bridges (the chain rides in the prompt's `_meta.contactor`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeAcpAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';
import { pollUntil } from '../helpers/wait.js';
import { CLI } from '../cli/run-cli.js';

/** An `acp` agent running `contactor acp --agent <agent>` of the bridge `env` names. */
function contactorAcp(agent: string, env: Record<string, string>): Record<string, unknown> {
  return {
    kind: 'acp',
    command: [process.execPath, CLI, 'acp', '--agent', agent],
    env,
    append_decision_contract: false,
    timeout_s: TEST_TIMEOUT_MS / 1000,
  };
}

const bridges: TestBridge[] = [];
afterAll(async () => {
  for (const b of bridges.reverse()) await b.cleanup();
});

async function settled(bridge: TestBridge, taskId: string) {
  return pollUntil(
    async () => (await bridge.rpc('tasks/get', { id: taskId })).result,
    (t) => !['submitted', 'working'].includes(t.status.state),
    `task ${taskId} to stop`,
  );
}

describe('contactor acp between two bridges', () => {
  let first: TestBridge;
  let second: TestBridge;

  beforeAll(async () => {
    first = await startTestBridge({ agents: { worker: fakeAcpAgent() } });
    bridges.push(first);
    second = await startTestBridge({
      agents: { 'first-bridge': contactorAcp('worker', { CONTACTOR_URL: first.url, CONTACTOR_TOKEN: first.token }) },
    });
    bridges.push(second);
  });

  it("reaches the first bridge's agent", async () => {
    const sent = await second.rpc('message/send', { agent: 'first-bridge', text: 'echo across two bridges' });
    expect(sent.result.status.state).toBe('completed');
    expect(sent.result.artifacts.at(-1).parts).toEqual([{ kind: 'text', text: 'echo: across two bridges' }]);
  });

  it('an approval travels back to the person at the second bridge, and the answer back to the agent', async () => {
    const sent = await second.rpc('message/send', {
      agent: 'first-bridge',
      text: 'permission',
      configuration: { blocking: false },
    });
    const waiting = await pollUntil(
      async () => (await second.rpc('tasks/get', { id: sent.result.id })).result,
      (t) => t.status.state === 'input-required',
      'the question at the second bridge',
    );
    expect(waiting.metadata.pending).toMatchObject({
      kind: 'permission',
      toolCall: { title: 'write', kind: 'edit' },
      options: [
        { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    const answered = await second.rpc('tasks/answer', { taskId: sent.result.id, answer: 'allow' });
    expect(answered.error).toBeUndefined();
    const done = await settled(second, sent.result.id);
    expect(done.status.state).toBe('completed');
    expect(done.artifacts.at(-1).parts).toEqual([{ kind: 'text', text: 'outcome=allow' }]);
    expect(done.metadata.answeredBy).toBe('person (token)');
    // At the first bridge the answer is the person's, through the ACP client that is the second bridge.
    const there = (await first.rpc('tasks/list', { agent: 'worker' })).result.tasks.find(
      (t: { history: { parts: { text?: string }[] }[] }) => t.history[0]?.parts[0]?.text === 'permission',
    );
    expect(there.metadata.answeredBy).toBe('person (token: ACP client contactor)');
  });
});

describe('contactor acp: a chain that comes back is refused', () => {
  it('second → first → second again is a delegation loop, refused at the second bridge', async () => {
    const dirA = tempDir();
    const dirB = tempDir();
    // Each bridge reaches the other through its config (discovery file and token), not through CONTACTOR_URL:
    // both must exist before either is started.
    const viaConfig = (dir: string) => ({
      CONTACTOR_URL: '',
      CONTACTOR_TOKEN: '',
      CONTACTOR_CONFIG: `${dir}/config.yaml`,
    });
    const a = await startTestBridge({ dir: dirA, agents: { 'to-b': contactorAcp('to-a', viaConfig(dirB)) } });
    bridges.push(a);
    const b = await startTestBridge({ dir: dirB, agents: { 'to-a': contactorAcp('to-b', viaConfig(dirA)) } });
    bridges.push(b);

    const sent = await b.rpc('message/send', { agent: 'to-a', text: 'go around', configuration: { blocking: false } });
    await settled(b, sent.result.id);
    const atB = (await b.rpc('tasks/list', { agent: 'to-a' })).result.tasks as {
      id: string;
      status: { state: string; message?: { parts: { text: string }[] } };
      metadata: { visitedAgents: string[]; delegationDepth: number };
    }[];
    const refused = atB.find((t) => t.id !== sent.result.id)!;
    expect(refused.status.state).toBe('rejected');
    expect(refused.status.message!.parts[0]!.text).toBe(
      'delegation loop: "to-a" is already in this chain (to-a → to-b); hand the work back to your caller instead',
    );
    const atA = (await a.rpc('tasks/list', { agent: 'to-b' })).result.tasks;
    expect(atA).toHaveLength(1);
    expect(atA[0].metadata.visitedAgents).toEqual(['to-a', 'to-b']);
  });
});
