import { afterEach, describe, expect, it } from 'vitest';
import { AskingBackend, fakeTraits, GatedBackend, permissionRequest } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

describe('per-context serialization', () => {
  let core: Core;
  afterEach(() => core.close());

  it('a second message in the same context waits for the first turn to finish', async () => {
    core = new Core();
    const gated = core.add('agent', new GatedBackend(fakeTraits({ multiTurn: true })));
    const first = await core.send('agent', 'one', { contextId: 'ctx-1' });
    await gated.started();
    const second = await core.send('agent', 'two', { contextId: 'ctx-1' });
    const other = await core.send('agent', 'elsewhere', { contextId: 'ctx-2' });
    gated.finish(0);
    await core.untilTerminal(first.id);
    // ctx-2 took the agent's next slot; ctx-1's follow-up was not even queued while its first turn ran.
    await gated.started(2);
    expect(gated.turns.map((t) => t.taskId)).toEqual([first.id, other.id]);
    gated.finish(1);
    await gated.started(3);
    gated.finish(2);
    await Promise.all([core.untilTerminal(second.id), core.untilTerminal(other.id)]);
    expect(gated.turns.map((t) => [t.taskId, t.followUp])).toEqual([
      [first.id, false],
      [other.id, false],
      [second.id, true],
    ]);
  });

  it('keeps waiting while the first turn is parked on a permission, although the agent slot is free', async () => {
    core = new Core();
    const asking = core.add('agent', new AskingBackend([permissionRequest('Edit file')]));
    const parked = await core.send('agent', 'one', { contextId: 'ctx-1', blocking: true });
    expect(parked.status.state).toBe('input-required');
    const second = await core.send('agent', 'two', { contextId: 'ctx-1' });
    // Another context of the same agent proves the slot is free: it runs and parks too.
    const other = await core.send('agent', 'three', { contextId: 'ctx-2', blocking: true });
    expect(other.status.state).toBe('input-required');
    expect(asking.turns.map((t) => t.taskId)).toEqual([parked.id, other.id]);
    expect(core.dispatcher.get(second.id).status.state).toBe('submitted');

    core.dispatcher.answer(parked.id, 'yes', { kind: 'person', via: 'test' });
    await core.untilTerminal(parked.id);
    await core.untilState(second.id, 'input-required');
    expect(asking.turns.map((t) => t.taskId)).toEqual([parked.id, other.id, second.id]);
  });
});
