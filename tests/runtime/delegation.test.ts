import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Identity } from '../../main/domain/authority.js';
import type { Task } from '../../main/domain/task.js';
import { resolveChain, type ChainRecords, type DelegationHints } from '../../main/runtime/delegation.js';
import { REPO_ROOT } from '../helpers/bridge.js';
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

describe('resolveChain: what an agent token may say about its chain', () => {
  const task = (id: string, agent: string, depth: number, visited: string[], state = 'working'): Task =>
    ({ id, status: { state }, metadata: { agent, delegationDepth: depth, visitedAgents: visited } }) as unknown as Task;
  const tasks = [
    task('t-beta', 'beta', 1, ['alpha', 'beta']),
    task('t-gamma', 'gamma', 2, ['alpha', 'beta', 'gamma']),
    task('t-gamma-2', 'gamma', 0, ['gamma']),
    task('t-done', 'echo', 0, ['echo'], 'completed'),
    task('t-queued', 'omega', 0, ['omega'], 'submitted'),
  ];
  const running = new Set(['t-beta', 't-gamma', 't-gamma-2', 't-queued']);
  const records: ChainRecords = {
    task: (id) => tasks.find((t) => t.id === id),
    inFlightOf: (agent) => tasks.filter((t) => running.has(t.id) && t.metadata.agent === agent),
  };
  const gamma: Identity = { kind: 'agent', agent: 'gamma' };

  it.each([
    ['no hints', {}, { depth: 3, visited: ['alpha', 'beta', 'gamma'] }],
    ['a finished task', { parentTaskId: 't-done' }, { depth: 3, visited: ['alpha', 'beta', 'gamma'] }],
    ["another agent's task", { parentTaskId: 't-beta' }, { depth: 3, visited: ['alpha', 'beta', 'gamma'] }],
    ['no such task', { parentTaskId: 'nope' }, { depth: 3, visited: ['alpha', 'beta', 'gamma'] }],
    [
      'its own task in another chain',
      { parentTaskId: 't-gamma-2' },
      { depth: 3, visited: ['alpha', 'beta', 'gamma'], parent: { id: 't-gamma-2', agent: 'gamma' } },
    ],
    [
      'its own task, a short chain and another caller',
      { parentTaskId: 't-gamma', depth: 0, visited: ['echo'], callerAgent: 'echo' },
      { depth: 3, visited: ['alpha', 'beta', 'gamma'], parent: { id: 't-gamma', agent: 'gamma' } },
    ],
  ] as const)('gamma naming %s gets the chain it runs in', (_name, hints, expected) => {
    expect(resolveChain({ ...hints } as DelegationHints, gamma, records)).toEqual(expected);
  });

  // A long-lived ACP agent's `contactor mcp` names no parent (docs/contract.md#agent-environment).
  it.each([
    [
      'the one task it works on is the parent',
      'beta',
      {},
      { depth: 2, visited: ['alpha', 'beta'], parent: { id: 't-beta', agent: 'beta' } },
    ],
    [
      'two tasks in flight: no parent (which one sent it is unknown)',
      'gamma',
      {},
      { depth: 3, visited: ['alpha', 'beta', 'gamma'] },
    ],
    ['a task still queued sends nothing: no parent', 'omega', {}, { depth: 1, visited: ['omega'] }],
    [
      'a parent named and not its own: none inferred',
      'beta',
      { parentTaskId: 't-gamma' },
      { depth: 2, visited: ['alpha', 'beta'] },
    ],
  ] as const)('naming no parent: %s', (_name, agent, hints, expected) => {
    expect(resolveChain({ ...hints } as DelegationHints, { kind: 'agent', agent }, records)).toEqual(expected);
  });

  it('an agent running nothing is a chain of its own', () => {
    const idle: Identity = { kind: 'agent', agent: 'delta' };
    expect(resolveChain({ parentTaskId: 't-gamma', visited: ['x'], depth: 2 }, idle, records)).toEqual({
      depth: 0,
      visited: ['delta'],
    });
  });

  it('the person: a named parent adds to the declared caller chain, never replaces it', () => {
    expect(resolveChain({ parentTaskId: 't-done', callerAgent: 'gamma' }, undefined, records)).toEqual({
      depth: 3,
      visited: ['gamma', 'echo', 'alpha', 'beta'],
      parent: { id: 't-done', agent: 'echo' },
    });
  });

  it('is called by the dispatcher alone: no other surface decides a chain', () => {
    const callers = filesUnder(path.join(REPO_ROOT, 'main')).filter(
      (f) => !f.endsWith(path.join('runtime', 'delegation.ts')) && /\bresolveChain\(/.test(readFileSync(f, 'utf8')),
    );
    expect(callers.map((f) => path.relative(REPO_ROOT, f).split(path.sep).join('/'))).toEqual([
      'main/runtime/dispatcher.ts',
    ]);
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}
