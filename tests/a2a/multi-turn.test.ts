/**
 * Continuing an input-required task the standard way — a new message carrying the task's taskId — in
 * both versions (v1 §3.4.2, v0.3 §7.1 / §7.2): for a decision (CLI echo agent) and for a permission
 * request (fake ACP agent), blocking and streamed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { METHODS, call, describeEvent, openStream, stateOf, taskOf, userMessage, type Version } from './wire.js';

let tb: TestBridge;

beforeAll(async () => {
  tb = await startTestBridge({ agents: { echo: echoAgent(), fake: fakeAcpAgent() }, isolatedEnv: true });
});
afterAll(async () => {
  await tb.cleanup();
});

const VERSIONS = [
  { version: '1.0', label: 'v1', sec: '§3.4.2 input-required', stream: '§3.1.2' },
  { version: '0.3', label: 'v0.3', sec: '§7.1 input-required', stream: '§7.2' },
] as const;

async function send(version: Version, path: string, message: Record<string, unknown>) {
  const res = await call(tb, version, METHODS[version].send, { message }, { path });
  expect(res.error).toBeUndefined();
  return taskOf(version, res.result);
}

const replyText = (task: { artifacts?: { parts: { text?: string }[] }[] }) =>
  (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? '')).join('');

describe.each(VERSIONS)('$label multi-turn', ({ version, label, sec, stream }) => {
  it(`${label} ${sec}: a decision is answered by a message with the task's taskId; the task continues and completes`, async () => {
    const parked = await send(version, '/agents/echo', userMessage(version, 'decide: red|blue'));
    expect(stateOf(parked)).toBe('input-required');
    const answer = userMessage(version, 'blue', { taskId: parked.id, contextId: parked.contextId });
    const done = await send(version, '/agents/echo', answer);
    expect(done.id).toBe(parked.id);
    expect(stateOf(done)).toBe('completed');
    expect(replyText(done)).toContain('Going with blue. Done.');
    expect(done.history.map((m: { messageId: string }) => m.messageId)).toContain(answer.messageId);
  });

  it(`${label} ${sec}: taskId alone is enough — the server infers the contextId, also at the root endpoint`, async () => {
    const parked = await send(version, '/agents/echo', userMessage(version, 'decide: up|down'));
    const done = await send(version, '/', userMessage(version, 'down', { taskId: parked.id }));
    expect(done.contextId).toBe(parked.contextId);
    expect(replyText(done)).toContain('Going with down. Done.');
  });

  it(`${label} ${sec}: a permission request is answered the same way and the agent's turn resumes`, async () => {
    const parked = await send(version, '/agents/fake', userMessage(version, 'permission'));
    expect(stateOf(parked)).toBe('input-required');
    expect(parked.metadata.pending.kind).toBe('permission');
    const done = await send(version, '/agents/fake', userMessage(version, 'allow', { taskId: parked.id }));
    expect(stateOf(done)).toBe('completed');
    expect(replyText(done)).toContain('outcome=allow');
  });

  it(`${label} ${stream} streaming continuation: the stream starts with the Task and carries only the new turn to its end`, async () => {
    const parked = await send(version, '/agents/fake', userMessage(version, 'permission'));
    const s = await openStream(tb, {
      version,
      method: METHODS[version].stream,
      params: { message: userMessage(version, 'allow', { taskId: parked.id }) },
      path: '/agents/fake',
    });
    const events = await s.rest();
    const kinds = events.map((e) => describeEvent(version, e));
    expect(kinds[0]).toMatchObject({ kind: 'task' });
    expect(kinds[0]!.result.id).toBe(parked.id);
    // The first turn's events (ending in the question this message answers) are not replayed.
    expect(kinds.slice(1).some((k) => k.result.metadata?.event === 'pending-created')).toBe(false);
    expect(kinds.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
    const ids = events.map((e) => e.id!);
    expect(ids.slice(1)).toEqual(ids.slice(1).map((_, i) => ids[0]! + 1 + i));
    const text = kinds
      .filter((k) => k.kind === 'artifact')
      .flatMap((k) => k.result.artifact.parts.map((p: { text: string }) => p.text));
    expect(text.join('')).toContain('outcome=allow');
  });
});
