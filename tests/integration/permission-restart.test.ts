/**
 * A permission pending when the bridge stopped can still be answered when the ACP agent
 * advertises `loadSession`. The answer starts a new turn: `session/load` restores the conversation (the
 * agent replays it; it does not re-send the dead turn's request), then a prompt tells the agent the
 * decision on that tool call. The fake agent implements session/load as the ACP schema defines it
 * (replay as session/update, then answer), keeping its sessions on disk so a new process can load them.
 * An agent that cannot load sessions keeps today's -32063 (tests/integration/acp-bridge.test.ts).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { METHODS, call, taskOf, userMessage, waitForState, type Version } from '../a2a/wire.js';
import { fakeAcpAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';

let bridges: TestBridge[] = [];
afterEach(async () => {
  await Promise.all(bridges.map((b) => b.cleanup()));
  bridges = [];
});

function setup(): { dir: string; log: string; agent: Record<string, unknown> } {
  const dir = tempDir();
  const sessions = path.join(dir, 'sessions');
  mkdirSync(sessions);
  const log = path.join(dir, 'agent.jsonl');
  return { dir, log, agent: fakeAcpAgent([`--session-dir=${sessions}`, `--log-prompts=${log}`]) };
}

async function start(dir: string, agent: Record<string, unknown>, dataDir?: string): Promise<TestBridge> {
  const b = await startTestBridge({ agents: { fake: agent }, ...(dataDir ? { dataDir } : { dir }) });
  bridges.push(b);
  return b;
}

const CASES = [
  { version: '1.0', answer: 'allow', verdict: 'ran the tool call' },
  { version: '0.3', answer: 'no', verdict: 'did not run the tool call' },
] as const;

it.each(CASES)(
  'A2A $version: answering "$answer" after a restart reloads the session and tells the agent the decision',
  async ({ version, answer, verdict }) => {
    const { dir, log, agent } = setup();
    const first = await start(dir, agent);
    const sent = await call(
      first,
      version,
      METHODS[version].send,
      { message: userMessage(version, 'permission') },
      {
        path: '/agents/fake',
      },
    );
    const parked = taskOf(version as Version, sent.result);
    const sessionId = parked.metadata.receipt.sessionId as string;
    expect(parked.metadata.pending).toMatchObject({ kind: 'permission', reattach: sessionId });
    await first.stop();

    const second = await start(dir, agent, first.dataDir);
    const answered = await call(
      second,
      version,
      METHODS[version].send,
      { message: userMessage(version, answer, { taskId: parked.id }), configuration: blocking(version) },
      { path: '/agents/fake' },
    );
    expect(answered.error).toBeUndefined();
    const done = await waitForState(second, parked.id, ['completed']);
    const reply = done.artifacts
      .at(-1)
      .parts.map((p: { text?: string }) => p.text ?? '')
      .join('');
    // The conversation came back (1 earlier message: the prompt that asked) and the agent acted on the answer.
    expect(reply).toBe(`picked up ${sessionId} with 1 earlier messages; ${verdict}`);
    expect(done.metadata.receipt).toMatchObject({ sessionId, sessionLoaded: true });
    expect(done.metadata.questions.at(-1)).toMatchObject({ kind: 'permission', outcome: 'answered', by: 'caller' });
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toContainEqual({ load: sessionId, replayed: 1 });
    // The dead turn's request was not asked again: the task never went back to input-required.
    expect(done.metadata.pending).toBeUndefined();
  },
  30_000,
);

function blocking(version: Version): Record<string, unknown> {
  return version === '1.0' ? { returnImmediately: false } : { blocking: true };
}
