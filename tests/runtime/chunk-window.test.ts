/**
 * Small pieces of reply text reach a watcher within the batching window (runtime/artifact-stream.ts,
 * docs/contract.md#streaming): a steady agent writing 48 characters every 10 ms must not wait for 512
 * characters, and once its chunks may leave 15 ms apart, no piece waits longer than one interval. Driven end to end — the agent's reporter, the live task, the real SQLite store's group
 * commit, a dispatcher subscriber — on fake timers, so "when" is the fake clock's, exact on any machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { textOf } from '../../main/domain/task.js';
import type { TurnReporter } from '../../main/ports.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { FakeBackend, Gate } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A backend whose reporter the test drives, on a fake clock from before its turn begins. */
async function steadyAgent(): Promise<{
  core: Core;
  report: TurnReporter;
  heard: { text: string; at: number }[];
  finish: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'contactor-window-'));
  // The clock is the test's from before the turn begins, so the reply's start is on it too: the stream's
  // timer fires when the test moves the clock. The store's group commit (a real setImmediate, the loop's
  // next check phase) runs at that same instant: the fake clock only moves when told, and `turn()` waits
  // for the immediates the timer queued.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const core = new Core({ store: new SqliteTaskStore({ file: join(dir, 'tasks.db') }) });
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => core.close(),
  );
  const reporter = new Gate<TurnReporter>();
  const end = new Gate();
  core.add(
    'steady',
    new FakeBackend(async (_turn, report) => {
      reporter.resolve(report);
      await end.promise;
      return { kind: 'completed' };
    }),
    { appendDecisionContract: false },
  );
  const task = await core.send('steady', 'go');
  await core.untilState(task.id, 'working');
  const report = await reporter.promise;
  const t0 = Date.now();
  const heard: { text: string; at: number }[] = [];
  const sub = core.dispatcher.subscribe(task.id, core.dispatcher.lastSeq(task.id), (event) => {
    if (event.kind === 'artifact-update') heard.push({ text: textOf(event.artifact.parts), at: Date.now() - t0 });
  });
  cleanups.push(() => sub.unsubscribe());
  const finish = async (): Promise<void> => {
    vi.useRealTimers();
    end.resolve();
    await core.untilTerminal(task.id);
  };
  return { core, report, heard, finish };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Twelve 48-character pieces 10 ms apart, the first `firstAt` ms after the turn began: when each was sent. */
async function twelvePieces(report: TurnReporter, firstAt: number): Promise<Map<string, number>> {
  const sentAt = new Map<string, number>();
  await vi.advanceTimersByTimeAsync(firstAt);
  for (let i = 0; i < 12; i++) {
    const piece = `p${String(i).padStart(2, '0')}|`.padEnd(48, '.');
    sentAt.set(piece, firstAt + i * 10);
    report.text(piece);
    await turn();
    await vi.advanceTimersByTimeAsync(10);
    await turn();
  }
  await vi.advanceTimersByTimeAsync(20);
  await turn();
  return sentAt;
}

function delaysOf(heard: { text: string; at: number }[], sentAt: Map<string, number>): number[] {
  return heard.flatMap((h) => (h.text.match(/p\d\d\|\.+/g) ?? []).map((piece) => h.at - sentAt.get(piece)!));
}

describe('a steady stream of small chunks', () => {
  it('leaves every other piece on arrival once chunks may leave 15 ms apart: while the stream goes on, a piece waits one interval at most', async () => {
    const { report, heard, finish } = await steadyAgent();
    // The agent thinks for 30 ms first, as a model does: its first piece may leave at once.
    const sentAt = await twelvePieces(report, 30);

    // A piece 15 ms or more after the last chunk leaves at once, taking the one held since 10 ms before.
    expect(heard.map((h) => [h.text.length, h.at])).toEqual([
      [48, 30],
      [96, 50],
      [96, 70],
      [96, 90],
      [96, 110],
      [96, 130],
      [48, 160],
    ]);
    expect(delaysOf(heard, sentAt)).toEqual([0, 10, 0, 10, 0, 10, 0, 10, 0, 10, 0, 20]);
    await finish();
  });

  it('waits no more than the 20 ms window when each piece comes just after a chunk left', async () => {
    const { report, heard, finish } = await steadyAgent();
    // Text from the turn's first instant is held (an agent answering at once leaves one chunk); the deadline
    // then always fires just before the next piece arrives, so every chunk leaves by the window's timer.
    const sentAt = await twelvePieces(report, 0);

    expect(heard.map((h) => [h.text.length, h.at])).toEqual([
      [96, 20],
      [96, 40],
      [96, 60],
      [96, 80],
      [96, 100],
      [96, 120],
    ]);
    expect(delaysOf(heard, sentAt)).toEqual([20, 10, 20, 10, 20, 10, 20, 10, 20, 10, 20, 10]);
    await finish();
  });
});
