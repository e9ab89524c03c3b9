/**
 * Reading and canceling tasks, both versions: v1 §3.1.3 GetTask / §3.1.5 CancelTask / §3.3.1,
 * v0.3 §7.3 tasks/get / §7.4 tasks/cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { METHODS, call, stateOf, taskOf, userMessage, type Version } from './wire.js';
import { waitForState } from '../helpers/wait.js';

let tb: TestBridge;

beforeAll(async () => {
  tb = await startTestBridge({ agents: { echo: echoAgent(), fake: fakeAcpAgent() }, isolatedEnv: true });
});
afterAll(async () => {
  await tb.cleanup();
});

const VERSIONS = [
  { version: '1.0', label: 'v1', get: '§3.1.3 GetTask', cancel: '§3.1.5 CancelTask', idem: '§3.3.1' },
  { version: '0.3', label: 'v0.3', get: '§7.3 tasks/get', cancel: '§7.4 tasks/cancel', idem: '§7.4' },
] as const;

async function sendTo(version: Version, path: string, text: string, configuration?: Record<string, unknown>) {
  const res = await call(
    tb,
    version,
    METHODS[version].send,
    { message: userMessage(version, text), ...(configuration ? { configuration } : {}) },
    { path },
  );
  return taskOf(version, res.result);
}

async function startTicking(version: Version): Promise<string> {
  const configuration = version === '1.0' ? { returnImmediately: true } : { blocking: false };
  const task = await sendTo(version, '/agents/fake', 'stream', configuration);
  await waitForState(tb, task.id, ['working']);
  return task.id;
}

describe.each(VERSIONS)('$label get and cancel', ({ version, label, get, cancel, idem }) => {
  it(`${label} ${get}: returns the bare Task with status, artifacts and history`, async () => {
    const sent = await sendTo(version, '/agents/echo', 'read me back');
    const res = await call(tb, version, METHODS[version].get, { id: sent.id });
    expect(res.result.id).toBe(sent.id);
    expect(res.result).not.toHaveProperty('task');
    expect(stateOf(res.result)).toBe('completed');
    expect(JSON.stringify(res.result.artifacts)).toContain('echo: read me back');
    expect(res.result.history).toHaveLength(1);
    if (version === '0.3') expect(res.result.kind).toBe('task');
    else expect(res.result.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it(`${label} ${get}: historyLength 0 omits the history, n keeps the newest n, negative is -32602`, async () => {
    const parked = await sendTo(version, '/agents/echo', 'decide: one|two');
    await call(
      tb,
      version,
      METHODS[version].send,
      { message: userMessage(version, 'two', { taskId: parked.id }) },
      { path: '/agents/echo' },
    );
    const none = await call(tb, version, METHODS[version].get, { id: parked.id, historyLength: 0 });
    expect(none.result.history ?? []).toEqual([]);
    if (version === '1.0') expect(none.result).not.toHaveProperty('history');
    const all = await call(tb, version, METHODS[version].get, { id: parked.id });
    expect(all.result.history).toHaveLength(2);
    const newest = await call(tb, version, METHODS[version].get, { id: parked.id, historyLength: 1 });
    expect(newest.result.history).toEqual([all.result.history[1]]);
    const negative = await call(tb, version, METHODS[version].get, { id: parked.id, historyLength: -1 });
    expect(negative.error?.code).toBe(-32602);
  });

  it(`${label} ${get}: an unknown task is -32001; a missing id is -32602`, async () => {
    expect((await call(tb, version, METHODS[version].get, { id: 'no-such-task' })).error?.code).toBe(-32001);
    expect((await call(tb, version, METHODS[version].get, {})).error?.code).toBe(-32602);
  });

  it(`${label} ${cancel}: a running task is canceled and the updated Task returned`, async () => {
    const id = await startTicking(version);
    const res = await call(tb, version, METHODS[version].cancel, { id });
    expect(res.result.id).toBe(id);
    expect(stateOf(res.result)).toBe('canceled');
    const later = await call(tb, version, METHODS[version].get, { id });
    expect(stateOf(later.result)).toBe('canceled');
  });

  it(`${label} ${cancel}: a task parked in input-required can be canceled`, async () => {
    const parked = await sendTo(version, '/agents/echo', 'decide: stay|go');
    const res = await call(tb, version, METHODS[version].cancel, { id: parked.id });
    expect(stateOf(res.result)).toBe('canceled');
    expect(res.result.metadata.pending).toBeUndefined();
  });

  it(`${label} ${cancel}: a terminal task is -32002 (not cancelable), an unknown one -32001`, async () => {
    const done = await sendTo(version, '/agents/echo', 'finished');
    const res = await call(tb, version, METHODS[version].cancel, { id: done.id });
    expect(res.error?.code).toBe(-32002);
    expect(res.error?.message).toContain('completed');
    expect((await call(tb, version, METHODS[version].cancel, { id: 'no-such-task' })).error?.code).toBe(-32001);
  });

  it(`${label} ${idem} cancel is idempotent: a second cancel changes nothing (TaskNotCancelable), the task stays canceled`, async () => {
    const id = await startTicking(version);
    const first = await call(tb, version, METHODS[version].cancel, { id });
    const second = await call(tb, version, METHODS[version].cancel, { id });
    expect(stateOf(first.result)).toBe('canceled');
    expect(second.error?.code).toBe(-32002);
    const after = await call(tb, version, METHODS[version].get, { id });
    expect(after.result.status).toEqual(first.result.status);
  });
});
