import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DECISION_MARKER } from '../../main/domain/decision-contract.js';
import { textOf } from '../../main/domain/task.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import {
  AskingBackend,
  FakeBackend,
  Gate,
  HangingBackend,
  permissionRequest,
  scripted,
} from '../fixtures/fake-backends.js';
import { Core, pastTheIdleFlush } from './core.js';

const ASK = ['Which one?', DECISION_MARKER, '- YAML', '- TOML', 'RECOMMEND: TOML', 'REASON: comments'].join('\n');

/** The agents of both runs: same names, fresh fake backends each time. */
function withAgents(core: Core) {
  return {
    runner: core.add('runner', new HangingBackend()),
    asker: core.add('asker', new AskingBackend([permissionRequest('Deploy')])),
    decider: core.add(
      'decider',
      scripted((t) => (t.text.includes('The requester chose') ? 'written as TOML' : ASK)),
    ),
  };
}

describe('restart recovery with a real SQLite file', () => {
  let dir: string;
  let file: string;
  const cores: Core[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'contactor-recovery-'));
    file = join(dir, 'contactor.db');
  });
  afterEach(async () => {
    for (const core of cores.splice(0)) await core.close({ crashed: true });
    rmSync(dir, { recursive: true, force: true });
  });

  function start(): Core {
    const core = new Core({ store: new SqliteTaskStore({ file }) });
    cores.push(core);
    return core;
  }

  it('fails what was running, keeps questions readable, and answers each kind as it can be', async () => {
    const a = start();
    const agentsA = withAgents(a);
    const running = await a.send('runner', 'long job', { messageId: 'job-1' });
    const queued = await a.send('runner', 'queued job');
    await agentsA.runner.started();
    const permission = await a.send('asker', 'deploy it', { blocking: true });
    const decision = await a.send('decider', 'write the config', { blocking: true });
    expect([running, queued, permission, decision].map((t) => a.dispatcher.get(t.id).status.state)).toEqual([
      'working',
      'submitted',
      'input-required',
      'input-required',
    ]);
    // A dies here: no shutdown, nothing settled.

    const b = start();
    const agentsB = withAgents(b);
    expect(b.dispatcher.recover()).toEqual({ failed: 3, waiting: 1 });

    for (const id of [running.id, queued.id]) {
      const failed = b.dispatcher.get(id);
      expect(failed.status.state).toBe('failed');
      expect(failed.metadata.retryable).toBe(true);
      expect(textOf(failed.status.message!.parts)).toContain('bridge restarted');
    }
    // The asker cannot take its request back up (no reattach handle): its question is not offered as
    // answerable, and the task says why and what to do.
    expect(b.dispatcher.pending().map((t) => t.id)).toEqual([decision.id]);
    const lost = b.dispatcher.get(permission.id);
    expect(lost.status.state).toBe('failed');
    expect(lost.metadata.retryable).toBe(true);
    expect(lost.metadata.pending).toBeUndefined();
    expect(textOf(lost.status.message!.parts)).toBe(
      'the bridge restarted while this task waited for permission (Deploy), and the agent cannot take its request back up; re-send it under a new messageId',
    );
    expect(() => b.dispatcher.answer(permission.id, 'yes', { kind: 'person', via: 'tester' })).toThrow();
    expect(agentsB.asker.turns).toHaveLength(0);

    b.dispatcher.answer(decision.id, '2', { kind: 'person', via: 'tester' });
    const done = await b.untilTerminal(decision.id);
    expect(done.status.state).toBe('completed');
    expect(agentsB.decider.turns).toHaveLength(1);
    expect(agentsB.decider.turns[0]!.text).toContain('write the config');
    expect(agentsB.decider.turns[0]!.text).toContain('The requester chose: TOML');
    expect(textOf(done.artifacts.at(-1)!.parts)).toBe('written as TOML');

    const replay = await b.send('runner', 'long job', { messageId: 'job-1', blocking: true });
    expect(replay).toMatchObject({ id: running.id, status: { state: 'failed' } });
    expect(agentsB.runner.turns).toHaveLength(0);

    // The stored event log carries on after the restart without a gap.
    const seqs = b.store.eventsAfter(decision.id, 0).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
  });

  it('a permission the agent cannot take back fails at start-up, and stays failed in the store', async () => {
    const a = start();
    withAgents(a);
    const permission = await a.send('asker', 'deploy it', { blocking: true });
    const b = start();
    withAgents(b);
    b.dispatcher.recover();
    expect(b.store.get(permission.id)!.task.status.state).toBe('failed');
    expect(b.dispatcher.pending()).toEqual([]);
  });

  it('after shutdown, a turn still writing stores nothing more: the next start decides', async () => {
    const a = start();
    const gate = new Gate();
    const wroteLate = new Gate();
    const talker = a.add(
      'talker',
      new FakeBackend(async (_turn, report) => {
        report.text('before shutdown');
        await gate.promise;
        report.text('x'.repeat(600));
        report.text('after shutdown');
        wroteLate.resolve();
        return { kind: 'completed' };
      }),
    );
    const task = await a.send('talker', 'talk');
    await talker.started();
    await a.untilEvent(task.id, (e) => e.kind === 'artifact-update');
    const before = a.store.get(task.id)!;
    a.dispatcher.shutdown();
    gate.resolve();
    await wroteLate.promise;
    await pastTheIdleFlush();
    // Whatever the store accepted is now readable as committed.
    a.store.flush?.();
    const after = a.store.get(task.id)!;
    expect(after.lastSeq).toBe(before.lastSeq);
    expect(after.task.status.state).toBe('working');

    const b = start();
    b.add('talker', scripted(['unused']));
    b.dispatcher.recover();
    expect(b.dispatcher.get(task.id).status.state).toBe('failed');
  });
});
