/**
 * `Activity.since` in batches (main/runtime/activity.ts; the activity window asks with ACTIVITY_BATCH
 * and follows `more`): a reader that always asks again with the cursor it was given sees every event of a
 * backlog larger than one batch exactly once, in the order the feed published them. A cursor taken from
 * past the batch (the last event of the whole backlog) would skip the rest of the backlog silently.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Activity } from '../../main/runtime/activity.js';
import { scripted } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

const BATCH = 4;

let core: Core;
afterEach(() => core.close());

describe('Activity.since with a backlog larger than one batch', () => {
  it('hands out every event once, in order, batch by batch, then says there is no more', async () => {
    core = new Core();
    core.add('echo', scripted(['done']));
    const activity = new Activity(core.dispatcher);
    const start = activity.snapshot(50).cursor;
    const [runId, startSeq] = start.split(':') as [string, string];

    // What the feed published, as its own listeners saw it: the reference, not Activity's answer.
    const published: string[] = [];
    const stop = core.feed.listen((event, _task, cursor) => published.push(`${cursor} ${event.taskId} ${event.kind}`));
    for (let i = 0; i < 5; i += 1) await core.send('echo', `task ${i}`, { blocking: true });
    stop();
    expect(published.length).toBeGreaterThan(3 * BATCH);

    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor = start;
    for (let asks = 0; ; asks += 1) {
      expect(asks, 'the reader never reached the end').toBeLessThan(100);
      const update = activity.since(cursor, BATCH, 50);
      if (update.kind !== 'events') throw new Error(`unexpected reset after ${cursor}`);
      seen.push(...update.entries.map((e) => `${e.cursor} ${e.event.taskId} ${e.event.kind}`));
      sizes.push(update.entries.length);
      cursor = update.cursor;
      if (!update.more) break;
    }

    expect(seen).toEqual(published);
    // The cursors are the feed's numbers after the snapshot's, one each, none skipped or repeated.
    expect(seen.map((line) => line.split(' ')[0])).toEqual(
      published.map((_, i) => `${runId}:${Number(startSeq) + i + 1}`),
    );
    // Full batches until the last, which holds the rest; the final cursor is the last event's.
    const full = Math.floor(published.length / BATCH);
    const rest = published.length % BATCH;
    expect(sizes).toEqual([...Array<number>(full).fill(BATCH), ...(rest ? [rest] : [])]);
    expect(cursor).toBe(`${runId}:${Number(startSeq) + published.length}`);
    // Asked again at the end: nothing more, and the same cursor.
    expect(activity.since(cursor, BATCH, 50)).toMatchObject({ kind: 'events', entries: [], more: false, cursor });
  });
});
