import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PermissionPending } from '../../main/domain/pending.js';
import { ALLOW_ONCE, AskingBackend, permissionRequest, scripted } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

const RULES = [
  { action: 'allow' as const, kinds: ['read', 'search'] },
  { action: 'deny' as const, command: '^rm\\s+-rf' },
  { action: 'ask' as const, kinds: ['execute'] },
];

const DECISION_REPLY = ['Which one?', '[[NEEDS_DECISION]]', '- A', '- B', 'RECOMMEND: A', 'REASON: simpler'].join('\n');

describe('standing approval rules', () => {
  let core: Core;
  afterEach(() => core.close());

  it('allows a tool kind the rules allow, without asking, and records which rule decided', async () => {
    core = new Core();
    const backend = core.add(
      'agent',
      new AskingBackend([permissionRequest('Read file', { kind: 'read', locations: [{ path: '/src/a.ts' }] })]),
      {
        approvalRules: RULES,
      },
    );
    const task = await core.send('agent', 'look', { blocking: true });
    expect(task.status.state).toBe('completed');
    expect(backend.outcomes).toEqual([{ outcome: 'selected', optionId: 'allow-once' }]);
    expect(task.metadata.questions).toEqual([
      expect.objectContaining({
        kind: 'permission',
        about: 'Read file',
        outcome: 'auto-decided',
        answer: 'allow-once',
        rule: 0,
      }),
    ]);
    expect(core.eventsOf(task.id).some((e) => e.kind === 'status-update' && e.status.state === 'input-required')).toBe(
      false,
    );
    expect(core.eventsOf(task.id)).toContainEqual(
      expect.objectContaining({
        metadata: expect.objectContaining({ event: 'pending-auto-decided', answer: 'allow-once' }),
      }),
    );
  });

  it('rejects a command matching a deny pattern, whatever the title says', async () => {
    core = new Core();
    const backend = core.add(
      'agent',
      new AskingBackend([permissionRequest('Run command', { rawInput: { command: 'rm -rf /tmp/build' } })]),
      { approvalRules: RULES },
    );
    const task = await core.send('agent', 'clean', { blocking: true });
    expect(task.status.state).toBe('completed');
    expect(backend.outcomes).toEqual([{ outcome: 'selected', optionId: 'reject-once' }]);
    expect(task.metadata.questions).toEqual([
      expect.objectContaining({ outcome: 'auto-decided', answer: 'reject-once', rule: 1 }),
    ]);
  });

  it('parks on an ask rule, and on a call no rule matches', async () => {
    core = new Core();
    core.add('asks', new AskingBackend([permissionRequest('Run tests', { rawInput: { command: 'npm test' } })]), {
      approvalRules: RULES,
    });
    core.add('nomatch', new AskingBackend([permissionRequest('Edit file', { kind: 'edit' })]), {
      approvalRules: RULES,
    });
    core.add(
      'titled',
      new AskingBackend([permissionRequest('read the file', { kind: 'execute', rawInput: 'cat x' })]),
      { approvalRules: RULES },
    );
    for (const agent of ['asks', 'nomatch', 'titled']) {
      const task = await core.send(agent, 'go', { blocking: true });
      expect({ agent, state: task.status.state }).toEqual({ agent, state: 'input-required' });
      expect(task.metadata.questions).toBeUndefined();
    }
  });

  it('remembers allow-always for the same tool call of the same agent, never for another command', async () => {
    core = new Core();
    const call = permissionRequest('Run tests', { rawInput: { command: 'npm test' } });
    const backend = core.add('agent', new AskingBackend([call]));
    const first = await core.send('agent', 'one', { blocking: true });
    core.dispatcher.answer(first.id, 'allow-always', { kind: 'person', via: 'tester' });
    await core.untilTerminal(first.id);
    const second = await core.send('agent', 'two', { blocking: true });
    expect(second.status.state).toBe('completed');
    expect(second.metadata.questions).toEqual([
      expect.objectContaining({ outcome: 'auto-decided', answer: 'allow-always' }),
    ]);
    expect(backend.outcomes.at(-1)).toEqual({ outcome: 'selected', optionId: 'allow-always' });

    const other = core.add(
      'other',
      new AskingBackend([permissionRequest('Run tests', { rawInput: { command: 'npm publish' } })]),
    );
    const third = await core.send('other', 'three', { blocking: true });
    expect(third.status.state).toBe('input-required');
    expect(other.outcomes).toEqual([]);
  });
});

describe('expiry of questions', () => {
  let core: Core;
  afterEach(async () => {
    await core.close();
    vi.useRealTimers();
  });

  function eventNames(taskId: string): unknown[] {
    return core
      .eventsOf(taskId)
      .flatMap((e) => (e.kind === 'status-update' && e.metadata?.event ? [e.metadata.event] : []));
  }

  it('rejects an unanswered permission at expiry (never allows), after a reminder at two thirds', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    core = new Core();
    const backend = core.add('agent', new AskingBackend([permissionRequest('Deploy')]), { approvalTimeoutMs: 30_000 });
    const task = await core.send('agent', 'ship it', { blocking: true });
    const pending = task.metadata.pending as PermissionPending;
    expect(Date.parse(pending.expiresAt) - Date.parse(pending.createdAt)).toBe(30_000);

    await vi.advanceTimersByTimeAsync(19_999);
    expect(eventNames(task.id)).toEqual(['pending-created']);
    await vi.advanceTimersByTimeAsync(2);
    expect(eventNames(task.id)).toEqual(['pending-created', 'pending-reminder']);
    expect(core.dispatcher.get(task.id).status.state).toBe('input-required');

    await vi.advanceTimersByTimeAsync(10_000);
    expect(eventNames(task.id)).toEqual(['pending-created', 'pending-reminder', 'pending-expired']);
    expect(backend.outcomes).toEqual([{ outcome: 'selected', optionId: 'reject-once' }]);
    const done = await core.untilTerminal(task.id);
    expect(done.status.state).toBe('completed');
    expect(done.metadata).toMatchObject({ answeredBy: 'expiry' });
    expect(done.metadata.questions).toEqual([
      expect.objectContaining({ outcome: 'expired', answer: 'reject-once', by: 'expiry' }),
    ]);
    expect(() => core.dispatcher.answer(task.id, 'yes', { kind: 'person', via: 'late' })).toThrow();
  });

  it('withdraws the request (cancelled) at expiry when the agent offered no reject option', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    core = new Core();
    const backend = core.add('agent', new AskingBackend([{ toolCall: { title: 'Deploy' }, options: [ALLOW_ONCE] }]), {
      approvalTimeoutMs: 1_000,
    });
    const task = await core.send('agent', 'ship it', { blocking: true });
    await vi.advanceTimersByTimeAsync(1_001);
    expect(backend.outcomes).toEqual([{ outcome: 'cancelled' }]);
    await core.untilTerminal(task.id);
  });

  it('fails an unanswered decision at expiry, retryable, after a reminder', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    core = new Core();
    core.add('agent', scripted([DECISION_REPLY]), { approvalTimeoutMs: 9_000 });
    const task = await core.send('agent', 'pick', { blocking: true });
    expect(task.status.state).toBe('input-required');
    await vi.advanceTimersByTimeAsync(6_001);
    expect(eventNames(task.id)).toEqual(['pending-created', 'pending-reminder']);
    await vi.advanceTimersByTimeAsync(3_000);
    const failed = core.dispatcher.get(task.id);
    expect(failed.status.state).toBe('failed');
    expect(failed.metadata).toMatchObject({ retryable: true, answeredBy: 'expiry' });
    expect(failed.metadata.pending).toBeUndefined();
    expect(eventNames(task.id)).toEqual(['pending-created', 'pending-reminder', 'pending-expired']);
  });
});
