/**
 * What `send` / `get` print under a failed task (main/cli/render/render-task.ts printOutcome): the timeout's
 * advice once, and for an agent that never started (missing program, key or folder) the change the reason
 * names, not "change the brief or the agent".
 */
import { describe, expect, it } from 'vitest';
import { printOutcome } from '../../main/cli/render/render-task.js';
import { Output } from '../../main/cli/render/output.js';
import type { CliTask } from '../../main/schema/cli.js';

function render(
  reason: string,
  metadata: Record<string, unknown>,
  opts: { ownMessageId?: boolean; artifacts?: unknown[]; stdout?: (s: string) => void } = {},
): string {
  let stderr = '';
  const stream = (write: (s: string) => void) => ({ write, isTTY: false }) as unknown as NodeJS.WriteStream;
  const out = new Output(false, {
    stdout: stream(opts.stdout ?? (() => undefined)),
    stderr: stream((s) => (stderr += s)),
    env: { NO_COLOR: '1' },
  });
  const task = {
    kind: 'task',
    id: 't1',
    contextId: 'c1',
    status: {
      state: 'failed',
      message: { kind: 'message', role: 'agent', messageId: 'm', parts: [{ kind: 'text', text: reason }] },
    },
    artifacts: opts.artifacts ?? [],
    history: [],
    metadata: { agent: 'shout', ...metadata },
  } as unknown as CliTask;
  expect(printOutcome(out, task, { ownMessageId: opts.ownMessageId === true })).toBe(1);
  return stderr;
}

describe('failure advice', () => {
  it('a timeout says how to retry once, not twice', () => {
    const text = render(
      'timed out after 30s; the agent was stopped; re-send under a new messageId to try again (the same one returns this failure)',
      { retryable: true },
    );
    expect(text.match(/re-send under a new/g)).toHaveLength(1);
  });

  it('a restart or a lost store write, whose reason says "re-send it under a new messageId", adds no second advice', () => {
    expect(
      render(
        'the bridge restarted while this task was running; re-send it under a new messageId',
        { retryable: true },
        { ownMessageId: true },
      ),
    ).toBe('task t1 failed: the bridge restarted while this task was running; re-send it under a new messageId\n');
  });

  it('a retryable failure whose reason gives no advice still gets it; the --message-id hint only after one', () => {
    expect(render('the agent crashed', { retryable: true })).toBe(
      'task t1 failed: the agent crashed\n  it may work if sent again\n',
    );
    expect(render('the agent crashed', { retryable: true }, { ownMessageId: true })).toBe(
      'task t1 failed: the agent crashed\n  it may work if sent again: re-send under a new --message-id (the same one returns this failure)\n',
    );
  });

  it('the partial reply a failed task kept is printed, and said to be partial', () => {
    let stdout = '';
    const artifacts = [{ artifactId: 'a', parts: [{ kind: 'text', text: 'half of the ans' }] }];
    const stderr = render('the agent crashed', { retryable: true }, { artifacts, stdout: (s) => (stdout += s) });
    expect(stdout).toBe('half of the ans\n');
    expect(stderr).toBe(
      'task t1 failed: the agent crashed\n  the reply above is what the agent wrote before it failed\n  it may work if sent again\n',
    );
  });

  it('an agent that never started: the change its reason names, not "change the brief"', () => {
    for (const reason of [
      'not delivered: could not start shout-cli: spawn shout-cli ENOENT; install shout-cli, or put its full path in config.yaml (agents.shout.command)',
      "not delivered: working directory /nope does not exist; create the folder, or fix `cwd:` in config.yaml (or the task's cwd)",
      'not delivered: the API key variable K (api_key_env of agent "shout") is not set; set K in the environment the bridge starts from',
    ]) {
      const text = render(reason, { retryable: false, receipt: { delivered: false } });
      expect(text).not.toContain('change the brief or the agent');
      expect(text).toContain(
        'the agent never started: make the change above, then re-send (`contactor doctor` checks the setup)',
      );
    }
  });

  it('an agent that ran and failed the same way each time: the brief or the agent', () => {
    expect(render('shout exited with code 7', { retryable: false, receipt: { delivered: true } })).toContain(
      'change the brief or the agent',
    );
  });
});
