/**
 * A follow-up turn tells the ACP agent which A2A message started it
 * (`_meta.contactor.messageId`, docs/contract.md#agent-environment): the requester's own messageId when a
 * message carried the answer, in both protocol versions; a made-up one only for `tasks/answer`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS, call, taskOf, userMessage, type Version } from '../a2a/wire.js';
import { waitForState } from '../helpers/wait.js';
import { fakeAcpAgent, startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';

let tb: TestBridge;
let log: string;

beforeAll(async () => {
  const dir = tempDir();
  log = path.join(dir, 'prompts.jsonl');
  tb = await startTestBridge({
    dir,
    agents: { fake: fakeAcpAgent([`--log-prompts=${log}`], { append_decision_contract: true }) },
  });
});
afterAll(async () => {
  await tb.cleanup();
});

/** The `_meta.contactor.messageId` of every prompt the agent got for this task, in order. */
function promptedIds(taskId: string): string[] {
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { meta?: { contactor?: { taskId: string; messageId: string } } })
    .filter((p) => p.meta?.contactor?.taskId === taskId)
    .map((p) => p.meta!.contactor!.messageId);
}

async function parkedDecision(version: Version, messageId: string): Promise<string> {
  const sent = await call(
    tb,
    version,
    METHODS[version].send,
    { message: userMessage(version, 'decide the settings format', { messageId }) },
    { path: '/agents/fake' },
  );
  const task = taskOf(version, sent.result);
  expect(task.metadata.pending).toMatchObject({ kind: 'decision' });
  return task.id as string;
}

describe.each(['1.0', '0.3'] as const)('A2A %s', (version) => {
  it('a message that continues the task reaches the agent under its own messageId', async () => {
    const first = `first-${version}-${crypto.randomUUID()}`;
    const id = await parkedDecision(version, first);
    const answerId = `answer-${version}-${crypto.randomUUID()}`;
    const answered = await call(
      tb,
      version,
      METHODS[version].send,
      { message: userMessage(version, 'TOML', { taskId: id, messageId: answerId }) },
      { path: '/agents/fake' },
    );
    expect(answered.error).toBeUndefined();
    await waitForState(tb, id, ['completed']);
    expect(promptedIds(id)).toEqual([first, answerId]);
  });
});

it('tasks/answer carries no message: the bridge makes up a fresh id for the turn', async () => {
  const first = `first-${crypto.randomUUID()}`;
  const id = await parkedDecision('0.3', first);
  await tb.rpc('tasks/answer', { taskId: id, answer: 'YAML' });
  await waitForState(tb, id, ['completed']);
  const ids = promptedIds(id);
  expect(ids).toHaveLength(2);
  expect(ids[0]).toBe(first);
  expect(ids[1]).toMatch(/^[0-9a-f-]{36}$/);
  expect(ids[1]).not.toBe(first);
});
