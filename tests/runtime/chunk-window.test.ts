/**
 * Small pieces of reply text reach a watcher within the batching window (runtime/artifact-stream.ts,
 * docs/contract.md#streaming): a steady agent writing 48 characters every 10 ms must not wait for 512
 * characters. Driven end to end — the agent's reporter, the live task, the real SQLite store's group
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

describe('a steady stream of small chunks', () => {
  it('reaches a subscriber no later than 20 ms after each piece arrived', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'contactor-window-'));
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

    // From here on the clock is the test's: the stream's timer fires when the test moves the clock. The
    // store's group commit (a real setImmediate, the loop's next check phase) runs at that same instant:
    // the fake clock only moves when told, and `turn()` waits for the immediates the timer queued.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const t0 = Date.now();
    const heard: { text: string; at: number }[] = [];
    const sub = core.dispatcher.subscribe(task.id, core.dispatcher.lastSeq(task.id), (event) => {
      if (event.kind === 'artifact-update') heard.push({ text: textOf(event.artifact.parts), at: Date.now() - t0 });
    });
    cleanups.push(() => sub.unsubscribe());

    // Twelve 48-character pieces, 10 ms apart (576 characters: past 512 by the old debounce's only flush).
    const sentAt = new Map<string, number>();
    for (let i = 0; i < 12; i++) {
      const piece = `p${String(i).padStart(2, '0')}|`.padEnd(48, '.');
      sentAt.set(piece, Date.now() - t0);
      report.text(piece);
      await turn();
      await vi.advanceTimersByTimeAsync(10);
      await turn();
    }
    await vi.advanceTimersByTimeAsync(20);
    await turn();

    // Each chunk leaves 20 ms after its first piece: the pieces at 0 and 10 ms at 20 ms, and so on.
    expect(heard.map((h) => [h.text.length, h.at])).toEqual([
      [96, 20],
      [96, 40],
      [96, 60],
      [96, 80],
      [96, 100],
      [96, 120],
    ]);
    const delays = heard.flatMap((h) => (h.text.match(/p\d\d\|\.+/g) ?? []).map((piece) => h.at - sentAt.get(piece)!));
    expect(delays).toEqual([20, 10, 20, 10, 20, 10, 20, 10, 20, 10, 20, 10]);

    vi.useRealTimers();
    end.resolve();
    await core.untilTerminal(task.id);
  });
});
