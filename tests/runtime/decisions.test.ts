import { afterEach, describe, expect, it } from 'vitest';
import { DECISION_CONTRACT, DECISION_MARKER } from '../../main/domain/decision-contract.js';
import type { DecisionPending } from '../../main/domain/pending.js';
import { textOf, type Task } from '../../main/domain/task.js';
import { FakeBackend, fakeTraits, GatedBackend, scripted } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

const ASK = [
  'I can write it two ways.',
  DECISION_MARKER,
  '- YAML',
  '- TOML',
  'RECOMMEND: TOML',
  'REASON: comments',
].join('\n');

/** Asks on the first turn of a task, completes on every later one, echoing what it was told. */
function asksOnce(multiTurn = false) {
  return scripted(
    (turn) => (turn.text.includes('The requester chose') ? `done: ${turn.text}` : ASK),
    fakeTraits({ multiTurn }),
  );
}

function answerTurnText(task: Task): string {
  return textOf(task.artifacts.at(-1)!.parts);
}

describe('decisions', () => {
  let core: Core;
  afterEach(() => core.close());

  it('parks a reply that ends with a valid block in input-required with the decision', async () => {
    core = new Core();
    const backend = core.add('agent', asksOnce(), { workspace: '/w' });
    const task = await core.send('agent', 'write the config', { blocking: true });
    expect(task.status.state).toBe('input-required');
    expect(task.metadata.pending).toMatchObject({
      kind: 'decision',
      question: 'I can write it two ways.',
      options: ['YAML', 'TOML'],
      recommend: 'TOML',
      reason: 'comments',
      workspace: '/w',
    } satisfies Partial<DecisionPending>);
    expect(textOf(task.status.message!.parts)).toContain('1. YAML\n2. TOML');
    expect(backend.turns[0]!.text).toBe(`write the config${DECISION_CONTRACT}`);
    expect(core.dispatcher.pending().map((t) => t.id)).toEqual([task.id]);
  });

  it('answering by number runs a new turn with the original prompt and the choice (not multiTurn)', async () => {
    core = new Core();
    const backend = core.add('agent', asksOnce(false));
    const task = await core.send('agent', 'write the config', { blocking: true });
    const answered = core.dispatcher.answer(task.id, '2', { kind: 'person', via: 'tester' });
    expect(answered.status.state).toBe('working');
    expect(answered.metadata.pending).toBeUndefined();
    const done = await core.untilTerminal(task.id);
    expect(done.status.state).toBe('completed');
    const followUp = backend.turns[1]!.text;
    expect(
      followUp.startsWith('write the config\n\n---\nYou asked: I can write it two ways.\nThe requester chose: TOML'),
    ).toBe(true);
    expect(followUp.endsWith(DECISION_CONTRACT)).toBe(true);
    expect(backend.turns[1]!.taskId).toBe(task.id);
    expect(done.metadata.lastAnswer).toMatchObject({ choice: 'TOML', freeText: false, by: 'person (tester)' });
    expect(done.metadata.questions).toEqual([
      expect.objectContaining({ kind: 'decision', outcome: 'answered', answer: 'TOML' }),
    ]);
    // The question turn leaves no artifact; the answer's reply takes the id, so a streaming client's
    // `append: false` chunk replaces the question text it saw.
    expect(done.artifacts.map((a) => a.artifactId)).toEqual([`${task.id}-reply`]);
  });

  it('sends only the choice to a multiTurn agent whose conversation is still warm', async () => {
    core = new Core();
    const backend = core.add('agent', asksOnce(true));
    const task = await core.send('agent', 'write the config', { blocking: true });
    core.dispatcher.answer(task.id, 'yaml', { kind: 'person', via: 'tester' });
    const done = await core.untilTerminal(task.id);
    expect(backend.turns[1]).toMatchObject({ followUp: true, contextId: task.contextId });
    expect(backend.turns[1]!.text).not.toContain('write the config');
    expect(backend.turns[1]!.text).toContain('The requester chose: YAML');
    expect(answerTurnText(done)).toContain('The requester chose: YAML');
  });

  it('passes free text on when the caller overrides the options', async () => {
    core = new Core();
    const backend = core.add('agent', asksOnce());
    const task = await core.send('agent', 'write the config', { blocking: true });
    core.dispatcher.answer(task.id, 'neither: use JSON5', { kind: 'person', via: 'tester' });
    const done = await core.untilTerminal(task.id);
    expect(backend.turns[1]!.text).toContain('The requester chose: neither: use JSON5');
    expect(done.metadata.lastAnswer).toMatchObject({ freeText: true });
  });

  it('the standard route (send with the waiting task id) settles the same question; a second answer is refused', async () => {
    core = new Core();
    const backend = core.add('agent', asksOnce());
    const task = await core.send('agent', 'write the config', { blocking: true });
    const done = await core.send('agent', '1', { taskId: task.id, blocking: true, messageId: 'answer-msg' });
    expect(done.id).toBe(task.id);
    expect(done.status.state).toBe('completed');
    expect(backend.turns[1]!.text).toContain('The requester chose: YAML');
    expect(done.history.map((m) => m.messageId)).toContain('answer-msg');
    expect(() => core.dispatcher.answer(task.id, '2', { kind: 'person', via: 'late' })).toThrow(
      expect.objectContaining({ reason: 'already-answered' }),
    );
    await expect(core.send('agent', '2', { taskId: task.id })).rejects.toMatchObject({
      reason: 'unsupported-operation',
    });
    expect(backend.turns).toHaveLength(2);
  });

  it('a second answer while the follow-up turn runs gets already-answered', async () => {
    core = new Core();
    const backend = core.add('agent', new GatedBackend());
    const task = await core.send('agent', 'write the config');
    backend.finish(0, ASK);
    await core.untilState(task.id, 'input-required');
    core.dispatcher.answer(task.id, '1', { kind: 'person', via: 'first' });
    expect(() => core.dispatcher.answer(task.id, '2', { kind: 'person', via: 'second' })).toThrow(
      expect.objectContaining({ reason: 'already-answered', message: expect.stringContaining('first') }),
    );
    await backend.started(2);
    backend.finish(1, 'ok');
    expect((await core.untilTerminal(task.id)).status.state).toBe('completed');
  });

  it('answering a task that is not waiting gets unsupported-operation', async () => {
    core = new Core();
    const backend = core.add('agent', new GatedBackend());
    const task = await core.send('agent', 'work');
    await backend.started();
    expect(() => core.dispatcher.answer(task.id, '1', { kind: 'person', via: 'tester' })).toThrow(
      expect.objectContaining({ reason: 'unsupported-operation', message: expect.stringContaining('working') }),
    );
    await expect(core.send('agent', '1', { taskId: task.id })).rejects.toMatchObject({
      reason: 'unsupported-operation',
    });
    expect(() => core.dispatcher.answer('no-such-task', '1', { kind: 'person', via: 'tester' })).toThrow(
      expect.objectContaining({ reason: 'task-not-found' }),
    );
    backend.finish(0);
  });

  it('refuses an empty answer to a decision instead of sending an empty choice', async () => {
    core = new Core();
    const backend = core.add('agent', asksOnce());
    const task = await core.send('agent', 'write the config', { blocking: true });
    expect(() => core.dispatcher.answer(task.id, '   ', { kind: 'person', via: 'tester' })).toThrow(
      expect.objectContaining({ reason: 'invalid-params' }),
    );
    await expect(
      core.send('agent', '', { taskId: task.id, parts: [{ kind: 'data', data: { pick: 1 } }] }),
    ).rejects.toMatchObject({ reason: 'invalid-params' });
    expect(core.dispatcher.get(task.id).status.state).toBe('input-required');
    expect(core.dispatcher.get(task.id).history).toHaveLength(1);
    expect(backend.turns).toHaveLength(1);
  });

  it('an answer that finds the agent queue full is refused with queue-full and can be given again later', async () => {
    core = new Core();
    const backend = core.add('agent', new GatedBackend(), { maxQueue: 1 });
    const parked = await core.send('agent', 'write the config');
    backend.finish(0, ASK);
    await core.untilState(parked.id, 'input-required');
    const busy = await core.send('agent', 'busy');
    await backend.started(2);
    await core.send('agent', 'queued');
    expect(() => core.dispatcher.answer(parked.id, '1', { kind: 'person', via: 'tester' })).toThrow(
      expect.objectContaining({ reason: 'queue-full' }),
    );
    expect(core.dispatcher.get(parked.id)).toMatchObject({
      status: { state: 'input-required' },
      metadata: { pending: { kind: 'decision' } },
    });
    backend.finish(1);
    await core.untilTerminal(busy.id);
    await backend.started(3);
    core.dispatcher.answer(parked.id, '1', { kind: 'person', via: 'tester' });
    backend.finish(2);
    await backend.started(4);
    backend.finish(3, 'done');
    expect((await core.untilTerminal(parked.id)).status.state).toBe('completed');
  });

  it('an agent that echoes its whole prompt, contract included, completes normally', async () => {
    core = new Core();
    core.add(
      'echo',
      scripted((turn) => turn.text),
    );
    const task = await core.send('echo', 'Summarise the README.', { blocking: true });
    expect(task.status.state).toBe('completed');
    expect(task.metadata.pending).toBeUndefined();
    expect(textOf(task.artifacts[0]!.parts)).toBe(`Summarise the README.${DECISION_CONTRACT}`);
  });

  it('with append_decision_contract off, the prompt goes as is and a decision-shaped reply just completes', async () => {
    core = new Core();
    const backend = core.add('agent', asksOnce(), { appendDecisionContract: false });
    const task = await core.send('agent', 'write the config', { blocking: true });
    expect(backend.turns[0]!.text).toBe('write the config');
    expect(task.status.state).toBe('completed');
  });

  it('keeps the files a turn produced when it ends with a decision; only the question text leaves the artifacts', async () => {
    core = new Core();
    const shot = { kind: 'file' as const, file: { bytes: 'iVBORw0KGgo=', mimeType: 'image/png', name: 'shot.png' } };
    core.add(
      'agent',
      new FakeBackend(async (_turn, report) => {
        report.content(shot);
        report.text(ASK);
        return { kind: 'completed' };
      }),
    );
    const task = await core.send('agent', 'draw it', { blocking: true });
    expect(task.status.state).toBe('input-required');
    expect((task.metadata.pending as DecisionPending).question).toBe('I can write it two ways.');
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]!.parts).toEqual([shot]);
  });
});
