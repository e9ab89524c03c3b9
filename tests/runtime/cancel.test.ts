import { afterEach, describe, expect, it } from 'vitest';
import { DECISION_MARKER } from '../../main/domain/decision-contract.js';
import { textOf } from '../../main/domain/task.js';
import { FakeBackend, Gate, GatedBackend, HangingBackend, scripted } from '../fixtures/fake-backends.js';
import { Core, pastTheIdleFlush } from './core.js';

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('cancel', () => {
  let core: Core;
  afterEach(() => core.close());

  it('cancels a running task, aborts the backend signal, and the late outcome changes nothing', async () => {
    core = new Core();
    const hanging = core.add('slow', new HangingBackend());
    const task = await core.send('slow', 'forever');
    await hanging.started();
    const canceled = await core.dispatcher.cancel(task.id);
    expect(canceled.status.state).toBe('canceled');
    expect(hanging.abortedSignals).toBe(1);
    // The backend answered the abort with `failed`; the canceled task must stay canceled.
    await new Promise((r) => setImmediate(r));
    expect(core.dispatcher.get(task.id).status.state).toBe('canceled');
    expect(core.store.get(task.id)!.task.status.state).toBe('canceled');
    expect(core.eventsOf(task.id).filter((e) => e.kind === 'status-update' && e.final)).toHaveLength(1);
  });

  it('drops text the agent writes after the cancel', async () => {
    core = new Core();
    const gate = new Gate();
    const wroteLate = new Gate();
    const late = core.add(
      'late',
      new FakeBackend(async (_turn, report) => {
        report.text('before ');
        await gate.promise;
        report.text('after');
        wroteLate.resolve();
        return { kind: 'completed' };
      }),
    );
    const task = await core.send('late', 'go');
    await late.started();
    await core.dispatcher.cancel(task.id);
    const canceledAt = core.store.get(task.id)!.lastSeq;
    gate.resolve();
    await wroteLate.promise;
    await pastTheIdleFlush();
    expect(core.store.get(task.id)!.lastSeq).toBe(canceledAt);
    const stored = core.store.get(task.id)!.task;
    expect(stored.status.state).toBe('canceled');
    expect(stored.artifacts.map((a) => textOf(a.parts)).join('')).not.toContain('after');
  });

  it('a queued task canceled before its turn never reaches the agent', async () => {
    core = new Core();
    const gated = core.add('worker', new GatedBackend());
    const first = await core.send('worker', 'first');
    const second = await core.send('worker', 'second');
    await gated.started();
    await core.dispatcher.cancel(second.id);
    gated.finish(0);
    await core.untilTerminal(first.id);
    const third = await core.send('worker', 'third');
    await gated.started(2);
    gated.finish(1);
    await core.untilTerminal(third.id);
    expect(gated.turns.map((t) => t.taskId)).toEqual([first.id, third.id]);
  });

  it('cancels a task parked on a decision; answering it afterwards is refused', async () => {
    core = new Core();
    core.add('agent', scripted([[DECISION_MARKER, '- A', '- B', 'RECOMMEND: A', 'REASON: r'].join('\n')]));
    const task = await core.send('agent', 'pick', { blocking: true });
    expect(task.status.state).toBe('input-required');
    const canceled = await core.dispatcher.cancel(task.id);
    expect(canceled).toMatchObject({ status: { state: 'canceled' }, metadata: { pending: undefined } });
    expect(() => core.dispatcher.answer(task.id, '1', { kind: 'person', via: 'late' })).toThrow(
      expect.objectContaining({ reason: 'unsupported-operation' }),
    );
    expect(core.dispatcher.pending()).toEqual([]);
  });

  it('refuses to cancel a finished task with not-cancelable, and an unknown one with task-not-found', async () => {
    core = new Core();
    core.add('echo', scripted(['done']));
    const task = await core.send('echo', 'hi', { blocking: true });
    await expect(core.dispatcher.cancel(task.id)).rejects.toMatchObject({
      reason: 'not-cancelable',
      message: expect.stringContaining('completed'),
    });
    await expect(core.dispatcher.cancel('no-such-task')).rejects.toMatchObject({ reason: 'task-not-found' });
    expect(() => core.dispatcher.get('no-such-task')).toThrow(expect.objectContaining({ reason: 'task-not-found' }));
  });
});

describe('how a cancel ended is kept', () => {
  let core: Core;
  afterEach(() => core.close());

  it('records when a canceled turn really ended, for any backend: after the agent stopped, not at the cancel', async () => {
    core = new Core();
    const letGo = new Gate();
    // Not ACP: a backend that sees the abort and keeps its turn until the test lets it stop.
    const agent = core.add(
      'agent',
      new FakeBackend(async (turn) => {
        if (!turn.text.startsWith('work')) return { kind: 'completed' };
        await new Promise((resolve) => turn.signal.addEventListener('abort', resolve, { once: true }));
        await letGo.promise;
        return { kind: 'failed', retryable: true, reason: 'stopped' };
      }),
    );
    const task = await core.send('agent', 'work');
    await agent.started();
    await core.dispatcher.cancel(task.id);
    const stopping = core.store.get(task.id)!.task;
    expect(stopping.status.state).toBe('canceled');
    expect(stopping.metadata.receipt).toEqual({ turnStartedAt: expect.stringMatching(ISO_TIME) });

    const letGoAt = Date.now();
    letGo.resolve();
    // The agent's one slot: the next task starts only once the canceled turn has finished.
    await core.send('agent', 'next');
    await agent.started(2);
    const stopped = core.store.get(task.id)!.task;
    expect(stopped.status.state).toBe('canceled');
    expect(stopped.metadata.receipt).toEqual({
      turnStartedAt: stopping.metadata.receipt!.turnStartedAt,
      turnEndedAt: expect.stringMatching(ISO_TIME),
    });
    expect(Date.parse(stopped.metadata.receipt!.turnEndedAt as string)).toBeGreaterThanOrEqual(letGoAt);
  });

  it('a task canceled while queued ran no turn: its receipt says none started or ended', async () => {
    core = new Core();
    const gated = core.add('worker', new GatedBackend());
    const first = await core.send('worker', 'first');
    const second = await core.send('worker', 'second');
    await gated.started();
    await core.dispatcher.cancel(second.id);
    gated.finish(0);
    await core.untilTerminal(first.id);
    // The queue has moved past the canceled task: the next send is the next turn the agent gets.
    const third = await core.send('worker', 'third');
    await gated.started(2);
    gated.finish(1);
    await core.untilTerminal(third.id);
    expect(core.store.get(second.id)!.task.metadata.receipt).toBeUndefined();
    expect(core.store.get(first.id)!.task.metadata.receipt).toEqual({
      turnStartedAt: expect.stringMatching(ISO_TIME),
      firstOutputAt: expect.stringMatching(ISO_TIME),
      turnEndedAt: expect.stringMatching(ISO_TIME),
    });
  });

  it('stores the receipt the backend reports after the task turned canceled (agent stopped or was killed)', async () => {
    core = new Core();
    // The ACP backend learns how the cancel ended only after the abort (prompt-turn.ts: receipt.cancel).
    const agent = core.add(
      'agent',
      new FakeBackend(async (turn, report) => {
        if (!turn.text.startsWith('work')) return { kind: 'completed' };
        await new Promise((resolve) => turn.signal.addEventListener('abort', resolve, { once: true }));
        report.receipt({ cancel: 'agent stopped the turn' });
        return { kind: 'failed', retryable: true, reason: 'stopped' };
      }),
    );
    const task = await core.send('agent', 'work');
    await agent.started();
    await core.dispatcher.cancel(task.id);
    // The agent's one slot: the next task starts only once the canceled turn has finished.
    await core.send('agent', 'next');
    await agent.started(2);
    const stored = core.store.get(task.id)!.task;
    expect(stored.status.state).toBe('canceled');
    expect(stored.metadata.receipt).toMatchObject({ cancel: 'agent stopped the turn' });
  });
});
