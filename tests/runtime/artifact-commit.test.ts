/**
 * A fast agent's pipe read (dozens of text pieces in one event-loop turn) leaves as two artifact chunks
 * (runtime/artifact-stream.ts) that share ONE group commit of the real SQLite store, so subscribers hear
 * of both in one delivery — one SSE socket write — and never before both are on disk.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamEvent, TaskEvent } from '../../main/domain/events.js';
import { textOf } from '../../main/domain/task.js';
import { SqliteTaskStore } from '../../main/stores/sqlite.js';
import { FakeBackend, Gate } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('artifact chunks of one pipe read', () => {
  it('commit together: told in one delivery, in order, each already on disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'contactor-chunks-'));
    const file = join(dir, 'tasks.db');
    const core = new Core({ store: new SqliteTaskStore({ file }) });
    // A second connection sees what a crash would leave: only committed transactions.
    const reader = new Database(file, { readonly: true });
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => core.close(),
      () => reader.close(),
    );
    const onDisk = (event: TaskEvent): boolean =>
      reader.prepare('SELECT 1 FROM events WHERE task_id = ? AND seq = ?').get(event.taskId, event.seq) !== undefined;

    const kib = 'k'.repeat(1023) + '\n';
    const talk = new Gate();
    const end = new Gate();
    core.add(
      'fast',
      new FakeBackend(async (_turn, report) => {
        // In a turn of its own, after `working` committed: as a pipe read of a running agent arrives.
        await talk.promise;
        for (let i = 0; i < 40; i++) report.text(kib);
        await end.promise;
        return { kind: 'completed' };
      }),
      { appendDecisionContract: false },
    );
    const task = await core.send('fast', 'go');
    await core.untilState(task.id, 'working');

    // A delivery is what one synchronous run tells: a group commit's callbacks run together, and
    // microtasks run between two commits (each its own setImmediate).
    let delivery = 0;
    let inDelivery = false;
    const heard: { event: StreamEvent; delivery: number; onDisk: boolean }[] = [];
    const twoChunks = new Gate();
    const sub = core.dispatcher.subscribe(task.id, core.dispatcher.lastSeq(task.id), (event) => {
      if (!inDelivery) {
        inDelivery = true;
        delivery += 1;
        queueMicrotask(() => (inDelivery = false));
      }
      heard.push({ event, delivery, onDisk: onDisk(event as TaskEvent) });
      if (heard.filter((h) => h.event.kind === 'artifact-update').length === 2) twoChunks.resolve();
    });
    cleanups.push(() => sub.unsubscribe());
    talk.resolve();
    await twoChunks.promise;

    const chunks = heard.filter((h) => h.event.kind === 'artifact-update');
    expect(chunks.map((h) => (h.event.kind === 'artifact-update' ? textOf(h.event.artifact.parts).length : 0))).toEqual(
      [1024, 39 * 1024],
    );
    expect(chunks.map((h) => h.event.seq)).toEqual([chunks[0]!.event.seq, chunks[0]!.event.seq + 1]);
    expect(chunks.every((h) => h.onDisk)).toBe(true);
    // Before, the first chunk committed alone and the turn's rest in a second group: two deliveries.
    expect(new Set(chunks.map((h) => h.delivery)).size).toBe(1);

    end.resolve();
    const done = await core.untilTerminal(task.id);
    expect(textOf(done.artifacts[0]!.parts)).toBe(kib.repeat(40));
  });
});
