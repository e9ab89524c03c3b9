/**
 * "Allow always" answers are remembered per agent (runtime/permission-desk.ts), the 256 most recently
 * allowed or used: a bridge that runs for weeks does not keep every call a person ever allowed. A call
 * forgotten that way is asked again (the safe side); one still remembered is answered as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskState } from '../../main/domain/task.js';
import { FakeBackend, permissionRequest } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

let core: Core;
afterEach(async () => {
  await core.close();
});

describe('remembered "allow always" calls', () => {
  it('keeps the 256 most recent per agent: the oldest is asked again, a recent one is still allowed', async () => {
    core = new Core();
    // Each turn asks to run the command its message names.
    core.add(
      'agent',
      new FakeBackend(async (turn, report) => {
        const outcome = await report.askPermission(permissionRequest(turn.text, { rawInput: { command: turn.text } }));
        report.text(outcome.outcome === 'selected' ? outcome.optionId : 'cancelled');
        return { kind: 'completed' };
      }),
      { appendDecisionContract: false, workspace: '/work/repo' },
    );
    /** Runs `command` in a task; answers "allow always" when asked. Returns the state it first settled in. */
    const run = async (command: string): Promise<TaskState> => {
      const task = await core.send('agent', command, { blocking: true });
      if (task.status.state === 'input-required') {
        core.dispatcher.answer(task.id, 'allow-always', { kind: 'person', via: 'tester' });
        expect((await core.untilTerminal(task.id)).status.state).toBe('completed');
      }
      return task.status.state;
    };

    expect(await run('cmd-0')).toBe('input-required');
    expect(await run('cmd-0')).toBe('completed'); // remembered
    expect(await run('cmd-1')).toBe('input-required');
    for (let i = 2; i < 257; i++) await run(`cmd-${i}`); // 257 allowed in all: one too many
    expect(await run('cmd-256')).toBe('completed');
    expect(await run('cmd-0')).toBe('input-required'); // the least recently used: forgotten, asked again
    expect(await run('cmd-2')).toBe('completed');
  }, 120_000);
});
