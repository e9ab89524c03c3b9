import { afterEach, describe, expect, it } from 'vitest';
import { GatedBackend, scripted } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

describe('delegation loop guards', () => {
  let core: Core;
  afterEach(() => core.close());

  it('rejects a send whose chain already visited the target, without calling the agent', async () => {
    core = new Core();
    const codex = core.add('codex', scripted(['never']));
    const task = await core.send('codex', 'loop back', {
      blocking: true,
      delegation: { depth: 1, visited: ['claude', 'codex'] },
    });
    expect(task.status.state).toBe('rejected');
    expect(task.status.message?.parts[0]).toMatchObject({
      kind: 'text',
      text: expect.stringContaining('delegation loop'),
    });
    expect(task.status.message?.parts[0]).toMatchObject({ text: expect.stringContaining('claude → codex') });
    expect(task.metadata.visitedAgents).toEqual(['claude', 'codex']);
    expect(codex.turns).toHaveLength(0);
    expect(core.dispatcher.get(task.id).status.state).toBe('rejected');
  });

  it('rejects a send at max_delegation_depth and accepts one just below it', async () => {
    core = new Core({ maxDelegationDepth: 3 });
    const worker = core.add('worker', scripted(['ok']));
    const deep = await core.send('worker', 'too deep', { blocking: true, delegation: { depth: 3 } });
    expect(deep.status.state).toBe('rejected');
    expect(deep.status.message?.parts[0]).toMatchObject({ text: expect.stringContaining('max_delegation_depth 3') });
    expect(worker.turns).toHaveLength(0);

    const fine = await core.send('worker', 'just fits', { blocking: true, delegation: { depth: 2 } });
    expect(fine.status.state).toBe('completed');
    expect(worker.turns).toHaveLength(1);
  });

  it('records the chain on an accepted task, itself included, and hands it to the backend', async () => {
    core = new Core();
    const worker = core.add('worker', scripted(['ok']));
    const task = await core.send('worker', 'go', { blocking: true, delegation: { depth: 1, visited: ['claude'] } });
    expect(task.metadata).toMatchObject({ delegationDepth: 1, visitedAgents: ['claude', 'worker'] });
    expect(worker.turns[0]).toMatchObject({ delegationDepth: 1, visitedAgents: ['claude', 'worker'] });
  });

  it('continues the chain of a parent task named by parentTaskId', async () => {
    core = new Core();
    const planner = core.add('planner', new GatedBackend());
    core.add('coder', scripted(['ok']));
    const parent = await core.send('planner', 'plan', { delegation: { depth: 0, visited: ['human'] } });
    await planner.started();
    const child = await core.send('coder', 'code', { blocking: true, delegation: { parentTaskId: parent.id } });
    expect(child.metadata).toMatchObject({ delegationDepth: 1, visitedAgents: ['human', 'planner', 'coder'] });

    const loop = await core.send('planner', 'back to you', { blocking: true, delegation: { parentTaskId: child.id } });
    expect(loop.status.state).toBe('rejected');
    planner.finish(0);
  });

  it('infers the chain from the calling agent tasks in flight when only callerAgent is given', async () => {
    core = new Core();
    const planner = core.add('planner', new GatedBackend());
    core.add('coder', scripted(['ok']));
    await core.send('planner', 'plan', { delegation: { depth: 1, visited: ['human'] } });
    await planner.started();
    const child = await core.send('coder', 'code', { blocking: true, delegation: { callerAgent: 'planner' } });
    expect(child.metadata).toMatchObject({ delegationDepth: 2, visitedAgents: ['planner', 'human', 'coder'] });

    const self = await core.send('planner', 'ask myself', { blocking: true, delegation: { callerAgent: 'planner' } });
    expect(self.status.state).toBe('rejected');
    planner.finish(0);
  });

  it('a callerAgent with nothing in flight still counts as visited', async () => {
    core = new Core();
    core.add('coder', scripted(['ok']));
    const task = await core.send('coder', 'code', { blocking: true, delegation: { callerAgent: 'hermes' } });
    expect(task.metadata).toMatchObject({ delegationDepth: 0, visitedAgents: ['hermes', 'coder'] });
  });
});
