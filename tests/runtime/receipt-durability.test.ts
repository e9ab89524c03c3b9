/**
 * SECURITY.md#agent-processes: the pid and start time of the agent running a task are what a restart after a crash
 * stops it by (recorded-agents.ts), so they must be stored while the task runs, not only with its next
 * status change (a crash before that would leave the agent unrecorded). Real SQLite file, read through a
 * second connection as the next bridge would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { DECISION_MARKER } from '../../main/domain/decision-contract.js';
import type { TaskEvent } from '../../main/domain/events.js';
import type { Task } from '../../main/domain/task.js';
import { InMemoryTaskStore } from '../../main/stores/memory.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { FakeBackend } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

let dir: string | undefined;
const cores: Core[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.close({ crashed: true });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('stores the agent pid and start time at once, while the task is still working', async () => {
  dir = mkdtempSync(join(tmpdir(), 'contactor-receipt-'));
  const file = join(dir, 'contactor.db');
  const core = new Core({ store: new SqliteTaskStore({ file }) });
  cores.push(core);
  let reported!: () => void;
  const receiptSent = new Promise<void>((resolve) => (reported = resolve));
  core.add(
    'agent',
    new FakeBackend((turn, report) => {
      report.receipt({ pid: 4242, startedAt: new Date().toISOString() });
      report.receipt({ pidStart: 'linux:boot:77' });
      reported();
      return new Promise((resolve) =>
        turn.signal.addEventListener('abort', () => resolve({ kind: 'failed', reason: 'stopped', retryable: true })),
      );
    }),
  );
  const task = await core.send('agent', 'work');
  await receiptSent;
  await new Promise((resolve) => setImmediate(resolve)); // the group commit of that turn

  const reader = new SqliteTaskStore({ file });
  try {
    const stored = reader.get(task.id)!.task;
    expect(stored.status.state).toBe('working');
    expect(stored.metadata.receipt).toMatchObject({ pid: 4242, pidStart: 'linux:boot:77' });
  } finally {
    reader.close();
  }
});

it('writes no extra snapshot when a later turn of the task runs on the process it already recorded', async () => {
  // An ACP agent keeps its process across turns and reports the same pid and start time on each.
  class CountingStore extends InMemoryTaskStore {
    snapshotsOnly = 0;
    override commit(taskId: string, events: TaskEvent[], task?: Task): string | undefined {
      if (events.length === 0 && task) this.snapshotsOnly += 1;
      return super.commit(taskId, events, task);
    }
  }
  const store = new CountingStore();
  const core = new Core({ store });
  cores.push(core);
  const ask = ['Which one?', DECISION_MARKER, '- A', '- B', 'RECOMMEND: A', 'REASON: simpler'].join('\n');
  core.add(
    'agent',
    new FakeBackend(async (turn, report) => {
      report.receipt({ pid: 4242, pidStart: 'linux:boot:77', processReused: true });
      report.text(turn.text.includes('The requester chose') ? 'done' : ask);
      return { kind: 'completed' };
    }),
  );
  const task = await core.send('agent', 'pick', { blocking: true });
  expect(task.status.state).toBe('input-required');
  expect(store.snapshotsOnly).toBe(1);
  core.dispatcher.answer(task.id, '1', { kind: 'person', via: 'tester' });
  const done = await core.untilTerminal(task.id);
  expect(done.status.state).toBe('completed');
  expect(done.metadata.receipt).toMatchObject({ pid: 4242, pidStart: 'linux:boot:77' });
  expect(store.snapshotsOnly).toBe(1);
});
