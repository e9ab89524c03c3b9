import { afterEach, describe, expect, it } from 'vitest';
import type { PermissionOutcome } from '../../main/ports.js';
import { Harness, makeTurn, RecordingReporter } from '../fixtures/acp/harness.js';
import { eventually } from '../helpers/wait.js';

const h = new Harness();
afterEach(() => h.cleanup());

const select = (optionId: string): Promise<PermissionOutcome> => Promise.resolve({ outcome: 'selected', optionId });

describe('AcpBackend permissions', () => {
  it('asks with the tool call and options, and passes an allow back', async () => {
    const report = new RecordingReporter(() => select('allow'));
    expect(await h.backend().run(makeTurn('permission'), report)).toEqual({ kind: 'completed' });
    expect(report.output).toBe('outcome=allow');
    expect(report.asked).toEqual([
      {
        // The request carried only the toolCallId; title, kind, input and locations come from the tool_call update.
        toolCall: {
          title: 'write',
          kind: 'edit',
          rawInput: { file: 'write.txt' },
          locations: [{ path: '/tmp/write.txt', line: 3 }],
        },
        options: [
          { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
        // Aborted if the agent takes the request back ($/cancel_request).
        withdrawn: expect.any(AbortSignal),
      },
    ]);
  });

  it('passes a reject back', async () => {
    const report = new RecordingReporter(() => select('reject'));
    await h.backend().run(makeTurn('permission'), report);
    expect(report.output).toBe('outcome=reject');
  });

  it('answers cancelled when the runtime says cancelled', async () => {
    const report = new RecordingReporter(async () => ({ outcome: 'cancelled' }));
    const outcome = await h.backend().run(makeTurn('permission'), report);
    expect(report.output).toBe('outcome=cancelled');
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true }); // the agent ended its own turn
  });

  it('never turns an option the agent did not offer into an approval', async () => {
    const report = new RecordingReporter(() => select('allow_always_everything'));
    await h.backend().run(makeTurn('permission'), report);
    expect(report.output).toBe('outcome=cancelled');
  });

  it('answers cancelled when the task is aborted while a person decides', async () => {
    const report = new RecordingReporter(() => new Promise(() => {})); // nobody ever answers
    const turn = makeTurn('permission');
    const run = h.backend().run(turn, report);
    await eventually(() => report.asked.length === 1, 'the permission request');
    turn.abort.abort();
    expect(await run).toEqual({ kind: 'failed', retryable: true, reason: 'stopped' });
    expect(report.output).toBe('outcome=cancelled');
    expect(report.facts.cancel).toBe('agent stopped the turn');
  });

  it('keeps two permission requests of one turn in order', async () => {
    const report = new RecordingReporter((_req, i) => select(i === 0 ? 'allow' : 'reject'));
    await h.backend().run(makeTurn('two-permissions'), report);
    expect(report.asked.map((a) => a.toolCall.title)).toEqual(['first', 'second']);
    expect(report.output).toBe('first=allow second=reject');
  });

  it('serves another context while one turn waits for an answer', async () => {
    const backend = h.backend();
    let answer: (o: PermissionOutcome) => void = () => undefined;
    const parked = new RecordingReporter(() => new Promise((resolve) => (answer = resolve)));
    const waiting = backend.run(makeTurn('permission', { contextId: 'a' }), parked);
    await eventually(() => parked.asked.length === 1, 'the permission request');

    const other = new RecordingReporter();
    expect(await backend.run(makeTurn('echo meanwhile', { contextId: 'b' }), other)).toEqual({ kind: 'completed' });
    expect(other.output).toBe('echo: meanwhile');

    answer({ outcome: 'selected', optionId: 'allow' });
    expect(await waiting).toEqual({ kind: 'completed' });
    expect(parked.output).toBe('outcome=allow');
  });
});
