import { afterEach, describe, expect, it } from 'vitest';
import { textOf } from '../../main/domain/task.js';
import { FakeBackend, HangingBackend, outcome, scripted, throwing } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

function statusText(task: { status: { message?: { parts: import('../../main/domain/task.js').Part[] } } }): string {
  return textOf(task.status.message?.parts ?? []);
}

describe('failure taxonomy', () => {
  let core: Core;
  afterEach(() => core.close());

  it('a timeout fails the task as retryable and aborts the backend signal', async () => {
    core = new Core();
    const hanging = core.add('slow', new HangingBackend(), { timeoutMs: 50 });
    const task = await core.send('slow', 'take forever', { blocking: true });
    expect(task.status.state).toBe('failed');
    expect(task.metadata.retryable).toBe(true);
    expect(statusText(task)).toContain('timed out after 0.05s');
    expect(hanging.abortedSignals).toBe(1);
  });

  it('a non-zero exit fails as not retryable, with the exit code and the tail of stderr', async () => {
    core = new Core();
    const stderr = `${'noise\n'.repeat(500)}fatal: the real cause`;
    core.add(
      'cli',
      outcome({ kind: 'failed', reason: 'exited with code 3', retryable: false, exitCode: 3, stderrTail: stderr }),
    );
    const task = await core.send('cli', 'do it', { blocking: true });
    expect(task.status.state).toBe('failed');
    expect(task.metadata).toMatchObject({ retryable: false, exitCode: 3 });
    // Whole lines only (the 600-character cut falls inside a "noise" line, which goes), and where the rest is.
    expect(statusText(task)).toBe(
      `exited with code 3\nits stderr, last lines (all of it: \`contactor logs cli\`):\n${'noise\n'.repeat(96)}fatal: the real cause`,
    );
  });

  it('completes with a warning when the agent finished without output', async () => {
    core = new Core();
    core.add('quiet', outcome({ kind: 'completed', exitCode: 0 }));
    const task = await core.send('quiet', 'say nothing', { blocking: true });
    expect(task.status.state).toBe('completed');
    expect(task.metadata.warning).toContain('without any output');
    expect(task.artifacts).toEqual([]);
  });

  it('completes without a warning when there is output', async () => {
    core = new Core();
    core.add('echo', scripted(['hello']));
    const task = await core.send('echo', 'greet', { blocking: true });
    expect(task.metadata.warning).toBeUndefined();
    expect(task.artifacts.map((a) => textOf(a.parts))).toEqual(['hello']);
    expect(task.metadata.requiresReview).toBe(true);
  });

  it('an undelivered turn fails and its receipt says it was not delivered', async () => {
    core = new Core();
    core.add('gone', outcome({ kind: 'undelivered', reason: 'spawn ENOENT', retryable: false }));
    const task = await core.send('gone', 'hello', { blocking: true });
    expect(task.status.state).toBe('failed');
    expect(task.metadata.receipt).toMatchObject({ delivered: false, undeliveredReason: 'spawn ENOENT' });
    expect(statusText(task)).toBe('not delivered: spawn ENOENT');
  });

  it('an auth-required outcome parks the task in auth-required with the reason', async () => {
    core = new Core();
    core.add('locked', outcome({ kind: 'auth-required', reason: 'run `claude login` first' }));
    const task = await core.send('locked', 'hello', { blocking: true });
    expect(task.status.state).toBe('auth-required');
    expect(statusText(task)).toBe('run `claude login` first');
    expect(core.dispatcher.pending().map((t) => t.id)).toEqual([task.id]);
  });

  it('a backend that throws fails the task, and the agent keeps serving', async () => {
    core = new Core();
    core.add('buggy', throwing('boom'));
    const task = await core.send('buggy', 'hello', { blocking: true });
    expect(task.status.state).toBe('failed');
    expect(task.metadata.retryable).toBe(false);
    expect(statusText(task)).toContain('boom');
    const next = await core.send('buggy', 'again', { blocking: true });
    expect(next.status.state).toBe('failed');
  });

  it('merges the facts a backend reports into the receipt, with when the first output came', async () => {
    core = new Core();
    core.add(
      'echo',
      new FakeBackend(async (_turn, report) => {
        report.receipt({ pid: 42 });
        report.text('x');
        report.receipt({ sessionId: 's-1' });
        return { kind: 'completed' };
      }),
    );
    const task = await core.send('echo', 'hi', { blocking: true });
    expect(task.metadata.receipt).toEqual({
      turnStartedAt: expect.any(String),
      pid: 42,
      sessionId: 's-1',
      firstOutputAt: expect.any(String),
      turnEndedAt: expect.any(String),
    });
  });
});
