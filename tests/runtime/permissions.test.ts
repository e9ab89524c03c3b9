import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PermissionPending } from '../../main/domain/pending.js';
import { textOf } from '../../main/domain/task.js';
import { AskingBackend, permissionRequest, STANDARD_OPTIONS } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

describe('permission questions', () => {
  let core: Core;
  afterEach(async () => {
    await core.close();
    vi.useRealTimers();
  });

  async function parkedOn(requests = [permissionRequest('Run `npm test`', { rawInput: { command: 'npm test' } })]) {
    core = new Core();
    const backend = core.add('agent', new AskingBackend(requests), { workspace: '/work/repo' });
    const task = await core.send('agent', 'check the build', { blocking: true });
    return { backend, task };
  }

  it('parks the task in input-required with the question, its options and the tool call', async () => {
    const { task } = await parkedOn();
    expect(task.status.state).toBe('input-required');
    const pending = task.metadata.pending as PermissionPending;
    expect(pending).toMatchObject({
      kind: 'permission',
      toolCall: { title: 'Run `npm test`', kind: 'execute', rawInput: { command: 'npm test' } },
      options: STANDARD_OPTIONS,
      workspace: '/work/repo',
      requestId: expect.any(String),
    });
    expect(Date.parse(pending.expiresAt)).toBeGreaterThan(Date.parse(pending.createdAt));
    expect(textOf(task.status.message!.parts)).toContain('agent asks permission: Run `npm test`');
    expect(core.eventsOf(task.id).at(-1)).toMatchObject({
      kind: 'status-update',
      final: true,
      metadata: { event: 'pending-created', pendingKind: 'permission' },
    });
    expect(core.dispatcher.pending().map((t) => t.id)).toEqual([task.id]);
    expect(core.store.get(task.id)?.task.metadata.pending).toEqual(pending);
  });

  it.each([
    ['its optionId', 'allow-always', 'allow-always'],
    ['its name in any case', 'ALLOW ONCE', 'allow-once'],
    ['yes', 'yes', 'allow-once'],
    ['no', 'no', 'reject-once'],
    ['its 1-based number', '3', 'reject-once'],
    ['its number as listed, with the dot', '3.', 'reject-once'],
  ])('takes an answer by %s and hands the agent that option', async (_how, answer, optionId) => {
    const { backend, task } = await parkedOn();
    const answered = core.dispatcher.answer(task.id, answer, { kind: 'person', via: 'tester' });
    expect(answered.status.state).toBe('working');
    expect(answered.metadata.pending).toBeUndefined();
    expect(answered.metadata).toMatchObject({
      answeredBy: 'person (tester)',
      lastAnswer: { optionId, by: 'person (tester)' },
    });
    const done = await core.untilTerminal(task.id);
    expect(done.status.state).toBe('completed');
    expect(backend.outcomes).toEqual([{ outcome: 'selected', optionId }]);
  });

  it('refuses an answer that matches no option, listing the valid ones, and keeps waiting', async () => {
    const { backend, task } = await parkedOn();
    const err = (() => {
      try {
        core.dispatcher.answer(task.id, 'maybe', { kind: 'person', via: 'tester' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toMatchObject({
      reason: 'invalid-params',
      data: { validAnswers: ['allow-once', 'allow-always', 'reject-once', 'yes', 'no'] },
    });
    // The wording a decision's refusal uses too (domain/option-choice.ts).
    expect((err as Error).message).toBe(
      'there is no option "maybe": choose 1-3 (1. Allow once (allow-once); 2. Always allow (allow-always); 3. Reject (reject-once)), or yes / no',
    );
    let outOfRange: unknown;
    try {
      core.dispatcher.answer(task.id, '4', { kind: 'person', via: 'tester' });
    } catch (e) {
      outOfRange = e;
    }
    expect((outOfRange as Error).message).toBe(
      'there is no option 4: choose 1-3 (1. Allow once (allow-once); 2. Always allow (allow-always); 3. Reject (reject-once)), or yes / no',
    );
    expect(core.dispatcher.get(task.id).status.state).toBe('input-required');
    expect(backend.outcomes).toEqual([]);
  });

  it('a second answer gets already-answered; the first one wins', async () => {
    const { backend, task } = await parkedOn();
    core.dispatcher.answer(task.id, 'no', { kind: 'person', via: 'first' });
    expect(() => core.dispatcher.answer(task.id, 'yes', { kind: 'person', via: 'second' })).toThrow(
      expect.objectContaining({ reason: 'already-answered', message: expect.stringContaining('first') }),
    );
    await core.untilTerminal(task.id);
    expect(() => core.dispatcher.answer(task.id, 'yes', { kind: 'person', via: 'late' })).toThrow(
      expect.objectContaining({ reason: 'already-answered' }),
    );
    expect(backend.outcomes).toEqual([{ outcome: 'selected', optionId: 'reject-once' }]);
  });

  it('presents two questions of one turn in order, one at a time', async () => {
    const { backend, task } = await parkedOn([
      permissionRequest('Read secrets.txt'),
      permissionRequest('Delete build/'),
    ]);
    expect((task.metadata.pending as PermissionPending).toolCall.title).toBe('Read secrets.txt');
    core.dispatcher.answer(task.id, 'yes', { kind: 'person', via: 'tester' });
    await core.untilState(task.id, 'input-required');
    expect((core.dispatcher.get(task.id).metadata.pending as PermissionPending).toolCall.title).toBe('Delete build/');
    core.dispatcher.answer(task.id, 'no', { kind: 'person', via: 'tester' });
    const done = await core.untilTerminal(task.id);
    expect(done.status.state).toBe('completed');
    expect(backend.outcomes).toEqual([
      { outcome: 'selected', optionId: 'allow-once' },
      { outcome: 'selected', optionId: 'reject-once' },
    ]);
    expect(textOf(done.artifacts[0]!.parts)).toBe('outcomes: allow-once, reject-once');
  });

  it('queues two questions asked at once and shows the next as soon as the first is answered', async () => {
    core = new Core();
    const backend = core.add(
      'agent',
      new AskingBackend([permissionRequest('first'), permissionRequest('second')], { together: true }),
    );
    const task = await core.send('agent', 'go', { blocking: true });
    expect((task.metadata.pending as PermissionPending).toolCall.title).toBe('first');
    const afterFirst = core.dispatcher.answer(task.id, 'no', { kind: 'person', via: 'tester' });
    expect(afterFirst.status.state).toBe('input-required');
    expect((afterFirst.metadata.pending as PermissionPending).toolCall.title).toBe('second');
    const afterSecond = core.dispatcher.answer(task.id, 'allow-always', { kind: 'person', via: 'tester' });
    expect(afterSecond.status.state).toBe('working');
    await core.untilTerminal(task.id);
    expect(backend.outcomes).toEqual([
      { outcome: 'selected', optionId: 'reject-once' },
      { outcome: 'selected', optionId: 'allow-always' },
    ]);
    expect(core.dispatcher.get(task.id).metadata.questions).toEqual([
      expect.objectContaining({
        kind: 'permission',
        about: 'first',
        outcome: 'answered',
        answer: 'reject-once',
        by: 'person (tester)',
      }),
      expect.objectContaining({
        kind: 'permission',
        about: 'second',
        outcome: 'answered',
        answer: 'allow-always',
        by: 'person (tester)',
      }),
    ]);
  });

  it('cancel while a question waits: the agent gets cancelled and the task is canceled', async () => {
    const { backend, task } = await parkedOn();
    const canceled = await core.dispatcher.cancel(task.id);
    expect(canceled.status.state).toBe('canceled');
    expect(canceled.metadata.pending).toBeUndefined();
    await backend.started();
    await new Promise((r) => setImmediate(r));
    expect(backend.outcomes).toEqual([{ outcome: 'cancelled' }]);
    expect(backend.turns[0]!.signal.aborted).toBe(true);
    expect(core.dispatcher.get(task.id).status.state).toBe('canceled');
    expect(core.dispatcher.pending()).toEqual([]);
  });

  it('pauses the turn timeout while a person decides', async () => {
    // A clock the test moves: three budgets pass while the question is open, without a real wait.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    core = new Core();
    const backend = core.add('agent', new AskingBackend([permissionRequest('Run it')]), { timeoutMs: 100 });
    const task = await core.send('agent', 'go', { blocking: true });
    expect(task.status.state).toBe('input-required');
    await vi.advanceTimersByTimeAsync(300);
    expect(core.dispatcher.get(task.id).status.state).toBe('input-required');
    core.dispatcher.answer(task.id, 'yes', { kind: 'person', via: 'tester' });
    const done = await core.untilTerminal(task.id);
    expect(done.status.state).toBe('completed');
    expect(backend.turns[0]!.signal.aborted).toBe(false);
  });

  it('settles the same question through the standard route (send with the task id) and keeps the message', async () => {
    const { backend, task } = await parkedOn();
    const done = await core.send('agent', 'allow-once', { taskId: task.id, blocking: true, messageId: 'answer-1' });
    expect(done.status.state).toBe('completed');
    expect(backend.outcomes).toEqual([{ outcome: 'selected', optionId: 'allow-once' }]);
    expect(done.history.map((m) => m.messageId)).toContain('answer-1');
    expect(() => core.dispatcher.answer(task.id, 'no', { kind: 'person', via: 'late' })).toThrow(
      expect.objectContaining({ reason: 'already-answered' }),
    );
  });

  it('a refused answer through the standard route leaves no message in the history', async () => {
    const { task } = await parkedOn();
    await expect(core.send('agent', 'perhaps', { taskId: task.id, messageId: 'bad-answer' })).rejects.toMatchObject({
      reason: 'invalid-params',
    });
    core.dispatcher.answer(task.id, 'yes', { kind: 'person', via: 'tester' });
    const done = await core.untilTerminal(task.id);
    expect(done.history.map((m) => m.messageId)).not.toContain('bad-answer');
    expect(core.store.get(task.id)!.task.history.map((m) => m.messageId)).not.toContain('bad-answer');
  });

  it('lists open questions oldest first', async () => {
    core = new Core();
    core.add('agent', new AskingBackend([permissionRequest('first')]));
    core.add('other', new AskingBackend([permissionRequest('second')]));
    const a = await core.send('agent', 'one', { blocking: true });
    // Two questions asked in the same millisecond have no order; let the clock move on.
    await new Promise((r) => setTimeout(r, 5));
    const b = await core.send('other', 'two', { blocking: true });
    expect(core.dispatcher.pending().map((t) => t.id)).toEqual([a.id, b.id]);
    core.dispatcher.answer(a.id, 'yes', { kind: 'person', via: 'tester' });
    await core.untilTerminal(a.id);
    expect(core.dispatcher.pending().map((t) => t.id)).toEqual([b.id]);
  });
});

describe('allow always', () => {
  let core: Core;
  afterEach(async () => {
    await core.close();
  });

  it('answers later issues of the whole same call only: another folder or environment is asked', async () => {
    core = new Core();
    const npmTest = (rawInput: Record<string, unknown>) => permissionRequest('npm test', { rawInput });
    const backend = core.add(
      'agent',
      new AskingBackend([
        npmTest({ command: 'npm test', cwd: '/work/repo', call_id: 'c1' }),
        // The agent's own per-issue id (AgentSettings.volatileInputFields) does not make it another call.
        npmTest({ cwd: '/work/repo', command: 'npm test', call_id: 'c2' }),
        npmTest({ command: 'npm test', cwd: '/', env: { NODE_OPTIONS: '--require /tmp/evil.js' }, call_id: 'c3' }),
      ]),
      { volatileInputFields: ['call_id'] },
    );
    const task = await core.send('agent', 'check the build', { blocking: true });
    core.dispatcher.answer(task.id, 'allow-always', { kind: 'person', via: 'tester' });
    const asked = await core.untilState(task.id, 'input-required');
    expect((asked.metadata.pending as PermissionPending).toolCall.rawInput).toEqual({
      command: 'npm test',
      cwd: '/',
      env: { NODE_OPTIONS: '--require /tmp/evil.js' },
      call_id: 'c3',
    });
    core.dispatcher.answer(task.id, 'no', { kind: 'person', via: 'tester' });
    await core.untilTerminal(task.id);
    expect(backend.outcomes).toEqual([
      { outcome: 'selected', optionId: 'allow-always' },
      { outcome: 'selected', optionId: 'allow-always' },
      { outcome: 'selected', optionId: 'reject-once' },
    ]);
    expect(core.dispatcher.get(task.id).metadata.questions).toEqual([
      expect.objectContaining({ outcome: 'answered', answer: 'allow-always' }),
      expect.objectContaining({ outcome: 'auto-decided', by: 'allow always' }),
      expect.objectContaining({ outcome: 'answered', answer: 'reject-once' }),
    ]);
  });

  it("answers the same words in another task's folder by asking: a raw input without a folder is not the whole call", async () => {
    core = new Core();
    // Claude Code's Bash input names no folder: the folder is the task's.
    const backend = core.add(
      'agent',
      new AskingBackend([permissionRequest('rm -rf build', { rawInput: { command: 'rm -rf build' } })]),
      { workspace: '/work/repo' },
    );
    const inFolder = (cwd: string) =>
      core.dispatcher.send({
        agent: 'agent',
        message: {
          kind: 'message',
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'clean' }],
        },
        idempotent: false,
        blocking: true,
        delegation: {},
        cwd,
      });
    const first = await inFolder('/work/repo/app');
    core.dispatcher.answer(first.id, 'allow-always', { kind: 'person', via: 'tester' });
    await core.untilTerminal(first.id);
    // Another task of the same agent, sent (by anyone) with another folder: asked, not auto-allowed.
    const second = await inFolder('/home/x');
    expect(second.status.state).toBe('input-required');
    expect((second.metadata.pending as PermissionPending).workspace).toBe('/home/x');
    core.dispatcher.answer(second.id, 'no', { kind: 'person', via: 'tester' });
    await core.untilTerminal(second.id);
    // The same folder again: the "allow always" still answers.
    const third = await inFolder('/work/repo/app');
    await core.untilTerminal(third.id);
    expect(backend.outcomes).toEqual([
      { outcome: 'selected', optionId: 'allow-always' },
      { outcome: 'selected', optionId: 'reject-once' },
      { outcome: 'selected', optionId: 'allow-always' },
    ]);
  });

  it('never remembers an edit without raw input: the next one is asked', async () => {
    core = new Core();
    const edit = permissionRequest('Edit a.txt', { kind: 'edit', locations: [{ path: '/work/repo/a.txt' }] });
    const backend = core.add('agent', new AskingBackend([edit, edit]));
    const task = await core.send('agent', 'edit it', { blocking: true });
    core.dispatcher.answer(task.id, 'allow-always', { kind: 'person', via: 'tester' });
    await core.untilState(task.id, 'input-required');
    core.dispatcher.answer(task.id, 'no', { kind: 'person', via: 'tester' });
    await core.untilTerminal(task.id);
    expect(backend.outcomes).toEqual([
      { outcome: 'selected', optionId: 'allow-always' },
      { outcome: 'selected', optionId: 'reject-once' },
    ]);
  });
});
