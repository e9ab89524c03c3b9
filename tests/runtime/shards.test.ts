import { afterEach, describe, expect, it } from 'vitest';
import { AskingBackend, GatedBackend, permissionRequest } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

describe('per-agent shards', () => {
  let core: Core;
  afterEach(() => core.close());

  it('runs one agent tasks one at a time, in the order they were sent', async () => {
    core = new Core();
    const gated = core.add('worker', new GatedBackend());
    const a = await core.send('worker', 'first');
    const b = await core.send('worker', 'second');
    const c = await core.send('worker', 'third');
    await gated.started(1);
    expect(gated.turns.map((t) => t.taskId)).toEqual([a.id]);
    expect(core.dispatcher.get(b.id).status.state).toBe('submitted');

    gated.finish(0);
    await gated.started(2);
    expect(gated.turns.map((t) => t.taskId)).toEqual([a.id, b.id]);
    expect(core.dispatcher.get(c.id).status.state).toBe('submitted');
    gated.finish(1);
    gated.finish(2);
    await core.untilTerminal(c.id);
    expect(gated.turns.map((t) => t.taskId)).toEqual([a.id, b.id, c.id]);
    expect(gated.turns.map((t) => t.text.split('\n')[0])).toEqual(['first', 'second', 'third']);
  });

  it('different agents run at the same time: each waits only for its own gate', async () => {
    core = new Core();
    const one = core.add('one', new GatedBackend());
    const two = core.add('two', new GatedBackend());
    const a = await core.send('one', 'held');
    const b = await core.send('two', 'also held');
    // Both turns started while neither has finished.
    await Promise.all([one.started(), two.started()]);
    two.finish(0);
    expect((await core.untilTerminal(b.id)).status.state).toBe('completed');
    expect(core.dispatcher.get(a.id).status.state).toBe('working');
    one.finish(0);
    expect((await core.untilTerminal(a.id)).status.state).toBe('completed');
  });

  it('a task parked on a permission question releases the slot to the next task of its agent', async () => {
    core = new Core();
    const asking = core.add('agent', new AskingBackend([permissionRequest('Run tests')]));
    const parked = await core.send('agent', 'needs permission', { blocking: true });
    expect(parked.status.state).toBe('input-required');
    const next = await core.send('agent', 'meanwhile', { blocking: true });
    expect(next.status.state).toBe('input-required');
    expect(asking.turns.map((t) => t.taskId)).toEqual([parked.id, next.id]);
    core.dispatcher.answer(parked.id, 'yes', { kind: 'person', via: 'test' });
    core.dispatcher.answer(next.id, 'no', { kind: 'person', via: 'test' });
    expect((await core.untilTerminal(parked.id)).status.state).toBe('completed');
    expect((await core.untilTerminal(next.id)).status.state).toBe('completed');
  });

  it('refuses a send with queue-full when the agent queue is at max_queue, and accepts again once it drains', async () => {
    core = new Core();
    const gated = core.add('worker', new GatedBackend(), { maxQueue: 1 });
    await core.send('worker', 'running');
    await gated.started();
    await core.send('worker', 'queued');
    await expect(core.send('worker', 'one too many')).rejects.toMatchObject({
      reason: 'queue-full',
      message: expect.stringContaining('max_queue 1'),
    });
    expect(core.store.list({ pageSize: 10, includeArtifacts: false }).totalSize).toBe(2);
    gated.finish(0);
    await gated.started(2);
    const later = await core.send('worker', 'room again');
    gated.finish(1);
    gated.finish(2);
    expect((await core.untilTerminal(later.id)).status.state).toBe('completed');
  });

  it('refuses queue-full even for sends made in the same tick', async () => {
    core = new Core();
    const gated = core.add('worker', new GatedBackend(), { maxQueue: 1 });
    await core.send('worker', 'running');
    await gated.started();
    const results = await Promise.allSettled([
      core.send('worker', 'a'),
      core.send('worker', 'b'),
      core.send('worker', 'c'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(results[1]).toMatchObject({ reason: { reason: 'queue-full' } });
    // The refused sends left no task behind that would fail later.
    expect(core.store.list({ pageSize: 10, includeArtifacts: false }).totalSize).toBe(2);
    gated.finish(0);
    gated.finish(1);
  });

  it('a replayed messageId returns its task even when the queue is full', async () => {
    core = new Core();
    const gated = core.add('worker', new GatedBackend(), { maxQueue: 1 });
    await core.send('worker', 'running');
    await gated.started();
    const queued = await core.send('worker', 'queued', { messageId: 'm-q' });
    const replay = await core.send('worker', 'queued', { messageId: 'm-q' });
    expect(replay.id).toBe(queued.id);
    gated.finish(0);
    gated.finish(1);
  });
});
