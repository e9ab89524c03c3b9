import { afterEach, describe, expect, it } from 'vitest';
import { BridgeError } from '../../main/domain/errors.js';
import { GatedBackend, scripted } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

describe('messageId idempotency', () => {
  let core: Core;
  afterEach(() => core.close());

  it('returns the same task for the same messageId and runs the agent once', async () => {
    core = new Core();
    const echo = core.add(
      'echo',
      scripted((t) => `ran: ${t.messageId}`),
    );
    const first = await core.send('echo', 'hello', { messageId: 'm-1', blocking: true });
    const again = await core.send('echo', 'hello', { messageId: 'm-1', blocking: true });
    expect(first.status.state).toBe('completed');
    expect(again.id).toBe(first.id);
    expect(again.status.state).toBe('completed');
    expect(echo.turns).toHaveLength(1);
  });

  it('a blocking replay of a task still running waits for the same run', async () => {
    core = new Core();
    const gated = core.add('gated', new GatedBackend());
    const first = await core.send('gated', 'work', { messageId: 'm-1' });
    await gated.started();
    const replay = core.send('gated', 'work', { messageId: 'm-1', blocking: true });
    gated.finish(0, 'the only run');
    const replayed = await replay;
    expect(replayed.id).toBe(first.id);
    expect(replayed.status.state).toBe('completed');
    expect(gated.turns).toHaveLength(1);
  });

  it('refuses the same messageId with a different payload, naming the first task', async () => {
    core = new Core();
    const echo = core.add('echo', scripted(['ok']));
    const first = await core.send('echo', 'hello', { messageId: 'm-1', blocking: true });
    const conflict = await core.send('echo', 'goodbye', { messageId: 'm-1' }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(BridgeError);
    expect(conflict).toMatchObject({ reason: 'idempotency-conflict', data: { taskId: first.id } });
    expect((conflict as Error).message).toContain('m-1');
    const otherContext = await core.send('echo', 'hello', { messageId: 'm-1', contextId: 'elsewhere' }).catch((e) => e);
    expect(otherContext).toMatchObject({ reason: 'idempotency-conflict' });
    expect(echo.turns).toHaveLength(1);
  });

  it('scopes message ids per agent', async () => {
    core = new Core();
    core.add('a', scripted(['from a']));
    core.add('b', scripted(['from b']));
    const a = await core.send('a', 'hello', { messageId: 'm-1', blocking: true });
    const b = await core.send('b', 'hello', { messageId: 'm-1', blocking: true });
    expect(b.id).not.toBe(a.id);
  });

  it('creates a new task for every send without a messageId', async () => {
    core = new Core();
    const echo = core.add('echo', scripted(['ok']));
    const one = await core.send('echo', 'hello', { blocking: true });
    const two = await core.send('echo', 'hello', { blocking: true });
    expect(two.id).not.toBe(one.id);
    expect(echo.turns).toHaveLength(2);
  });

  it('names the configured agents when the agent is unknown', async () => {
    core = new Core();
    core.add('echo', scripted(['ok']));
    await expect(core.send('nobody', 'hello')).rejects.toMatchObject({
      reason: 'unknown-agent',
      message: expect.stringContaining('echo'),
    });
  });
});
