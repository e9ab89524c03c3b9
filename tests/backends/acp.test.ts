import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SESSIONS } from '../../main/backends/acp/connection.js';
import { Harness, makeTurn, RecordingReporter } from '../fixtures/acp/harness.js';

const h = new Harness();
afterEach(() => h.cleanup());

describe('AcpBackend turns', () => {
  it('runs a text turn and records what it observed', async () => {
    const backend = h.backend();
    const report = new RecordingReporter();
    const outcome = await backend.run(makeTurn('echo hello there'), report);
    expect(outcome).toEqual({ kind: 'completed' });
    expect(report.output).toBe('echo: hello there');
    expect(report.facts).toMatchObject({
      requestedForm: 'acp',
      actualForm: 'acp',
      processReused: false,
      sessionReused: false,
      sessionId: 's-1',
      protocolVersion: 1,
      agentInfo: { name: 'fake-agent', version: '1.0.0' },
      stopReason: 'end_turn',
    });
    expect(report.facts.pid).toEqual(expect.any(Number));
    expect(Date.parse(report.facts.firstOutputAt as string)).not.toBeNaN();
  });

  it('streams 2,000 characters as several chunks, in order', async () => {
    const report = new RecordingReporter();
    await h.backend().run(makeTurn('long 2000'), report);
    expect(report.texts.length).toBeGreaterThan(1);
    expect(report.output).toBe(Array.from({ length: 2000 }, (_, i) => String(i % 10)).join(''));
  });

  it('reports tool calls, plans and thoughts as progress and skips other updates', async () => {
    const report = new RecordingReporter();
    await h.backend().run(makeTurn('progress'), report);
    expect(report.notes.map((n) => [n.kind, n.text])).toEqual([
      ['thought', 'thinking hard'],
      ['plan', '[in_progress] step one'],
      ['tool_call', 'read a.txt (in_progress)'],
      ['tool_call_update', 'read a.txt (completed)'],
    ]);
    expect(report.output).toBe('done');
  });

  it('survives an update variant it does not know', async () => {
    const report = new RecordingReporter();
    expect(await h.backend().run(makeTurn('unknown-update'), report)).toEqual({ kind: 'completed' });
    expect(report.output).toBe('after');
  });

  it('passes the per-task identity in _meta.contactor', async () => {
    const report = new RecordingReporter();
    const turn = makeTurn('meta', { delegationDepth: 2, visitedAgents: ['claude', 'codex'] });
    await h.backend().run(turn, report);
    expect(JSON.parse(report.output)).toEqual({
      contactor: {
        taskId: turn.taskId,
        contextId: turn.contextId,
        messageId: turn.messageId,
        delegationDepth: 2,
        visitedAgents: ['claude', 'codex'],
      },
    });
  });

  it('keeps one session per context and one process per agent', async () => {
    const backend = h.backend();
    const first = new RecordingReporter();
    await backend.run(makeTurn('count', { contextId: 'c1' }), first);
    const second = new RecordingReporter();
    await backend.run(makeTurn('count', { contextId: 'c1', followUp: true }), second);
    const other = new RecordingReporter();
    await backend.run(makeTurn('count', { contextId: 'c2' }), other);

    expect(first.output).toBe('session=s-1 turn=1');
    expect(second.output).toBe('session=s-1 turn=2');
    expect(second.facts).toMatchObject({ sessionReused: true, processReused: true, pid: first.facts.pid });
    expect(other.output).toBe('session=s-2 turn=1');
    expect(other.facts).toMatchObject({ sessionReused: false, processReused: true });
  });

  it('keeps at most MAX_SESSIONS sessions: the least recently used idle one is closed at the agent', async () => {
    const backend = h.backend(['--close-sessions']);
    const run = async (contextId: string, text: string, followUp = false): Promise<RecordingReporter> => {
      const rec = new RecordingReporter();
      await backend.run(makeTurn(text, { contextId, followUp }), rec);
      return rec;
    };
    for (let i = 1; i <= MAX_SESSIONS; i += 1) await run(`c${i}`, 'count');
    await run('c1', 'count', true); // c1 used again: c2 is now the least recently used
    const over = await run('c-new', 'sessions');

    const open = over.output.replace('open=', '').split(',');
    expect(open).toHaveLength(MAX_SESSIONS);
    expect(open).toContain('s-1');
    expect(open).not.toContain('s-2');
    // A follow-up in the closed context gets a new session (and says so), not an error.
    const back = await run('c2', 'count', true);
    expect(back.output).toBe(`session=s-${MAX_SESSIONS + 2} turn=1`);
    expect(back.facts).toMatchObject({ sessionReused: false, earlierSessionLost: true });
  });

  it('fails with the agent message when the prompt errors, and keeps working', async () => {
    const backend = h.backend();
    const outcome = await backend.run(makeTurn('error'), new RecordingReporter());
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
    expect(outcome.kind === 'failed' && outcome.reason).toMatch(/-32603.*model provider failed: overloaded/);
    expect(await backend.run(makeTurn('echo ok'), new RecordingReporter())).toEqual({ kind: 'completed' });
  });

  it('fails a refusal as not retryable', async () => {
    const outcome = await h.backend().run(makeTurn('refuse'), new RecordingReporter());
    expect(outcome).toMatchObject({ kind: 'failed', retryable: false, reason: expect.stringMatching(/refus/) });
  });

  it('tolerates a few non-protocol lines at startup', async () => {
    const report = new RecordingReporter();
    expect(await h.backend(['--banner=5']).run(makeTurn('echo fine'), report)).toEqual({ kind: 'completed' });
    expect(report.output).toBe('echo: fine');
  });

  it('declares its traits on the card without starting the agent', () => {
    expect(h.backend().traits).toEqual({
      backend: 'acp',
      streaming: true,
      inputRequired: true,
      interruptible: true,
      multiTurn: true,
      limits: '',
    });
  });
});
