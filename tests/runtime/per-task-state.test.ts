/**
 * What the runtime and the store keep per task is let go when the task ends (docs/benchmark.md#what-the-bridge-remembers):
 * after tasks of every kind — a plain reply, a streamed one, a permission request and a decision each
 * answered, a canceled one — the live tasks, the pending-question timers and queues, the conversations'
 * turn queues and the store's per-task write state are all empty. Each count is read from the object that
 * keeps it (white-box: these maps have no public size), so a map that forgets to remove its entry fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DECISION_MARKER } from '../../main/domain/decision-contract.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { AskingBackend, HangingBackend, permissionRequest, scripted, streaming } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ASK = ['Which one?', DECISION_MARKER, '- YAML', '- TOML', 'RECOMMEND: YAML', 'REASON: it is used'].join('\n');

/** The size of a Map or Set at `path` inside `root` (private fields, read as the test of their bounds). */
function sizeAt(root: unknown, path: string): number {
  const found = path.split('.').reduce<unknown>((o, key) => (o as Record<string, unknown>)[key], root);
  if (!(found instanceof Map) && !(found instanceof Set)) throw new Error(`${path} is not a Map or a Set`);
  return found.size;
}

describe('per-task state', () => {
  it('is empty again once every task ended, whatever way it ended', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'contactor-per-task-'));
    const store = new SqliteTaskStore({ file: join(dir, 'tasks.db') });
    const core = new Core({ store });
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => core.close(),
    );
    core.add('plain', scripted(['ok']), { appendDecisionContract: false });
    core.add('stream', streaming(['a'.repeat(600), 'b'.repeat(300), 'c'], { yieldBetween: true }), {
      appendDecisionContract: false,
    });
    core.add('asks', new AskingBackend([permissionRequest('Run `make`', { rawInput: { command: 'make' } })]));
    core.add(
      'decides',
      scripted((turn) => (turn.text.includes('The requester chose') ? 'done' : ASK)),
    );
    core.add('hangs', new HangingBackend());

    for (let i = 0; i < 5; i++) await core.send('plain', `hi ${i}`, { blocking: true, contextId: `ctx-${i}` });
    await core.send('stream', 'go', { blocking: true });
    const asked = await core.send('asks', 'build', { blocking: true });
    expect(asked.status.state).toBe('input-required');
    core.dispatcher.answer(asked.id, 'allow-once', { kind: 'person', via: 'tester' });
    await core.untilTerminal(asked.id);
    const decision = await core.send('decides', 'write the config', { blocking: true });
    expect(decision.status.state).toBe('input-required');
    core.dispatcher.answer(decision.id, 'YAML', { kind: 'person', via: 'tester' });
    await core.untilTerminal(decision.id);
    const hanging = await core.send('hangs', 'wait');
    await core.untilState(hanging.id, 'working');
    await core.dispatcher.cancel(hanging.id);
    await core.untilTerminal(hanging.id);

    const states = core.store
      .list({ pageSize: 50, includeArtifacts: false })
      .tasks.map((t) => t.status.state)
      .sort();
    expect(states).toEqual(['canceled', ...Array<string>(8).fill('completed')]);
    const d = core.dispatcher;
    const counts = () => ({
      'live.live': sizeAt(d, 'live.live'),
      'live.recordingLoss': sizeAt(d, 'live.recordingLoss'),
      'live.retries': sizeAt(d, 'live.retries'),
      'clock.timers': sizeAt(d, 'clock.timers'),
      'desk.queues': sizeAt(d, 'desk.queues'),
      'desk.timers': sizeAt(d, 'desk.timers'),
      'turns.conversations.waiting': sizeAt(d, 'turns.conversations.waiting'),
      'store.pending.tasks': sizeAt(store, 'pending.tasks'),
      'store.pending.committedSeq': sizeAt(store, 'pending.committedSeq'),
    });
    // A canceled turn's promise settles a few loop turns after its terminal state (the backend stops on
    // the abort): wait for the loop, by turns, not by time; a map that keeps its entry never empties.
    for (let turn = 0; turn < 100 && Object.values(counts()).some((n) => n > 0); turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(counts()).toEqual({
      'live.live': 0,
      'live.recordingLoss': 0,
      'live.retries': 0,
      'clock.timers': 0,
      'desk.queues': 0,
      'desk.timers': 0,
      'turns.conversations.waiting': 0,
      'store.pending.tasks': 0,
      'store.pending.committedSeq': 0,
    });
  });
});
