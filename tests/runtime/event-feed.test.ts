/**
 * The event feed's resume cursor (main/runtime/event-feed.ts): every event gets the next number of this
 * bridge run; a reader resuming after a cursor gets exactly the events it missed, in order, or `reset`
 * when they are not all kept, the cursor is from another run, or it is not a cursor at all.
 */
import { describe, expect, it } from 'vitest';
import { statusUpdate, artifactUpdate, type TaskEvent } from '../../main/domain/events.js';
import type { Task } from '../../main/domain/task.js';
import { EventFeed, FEED_REPLAY_BYTES, FEED_REPLAY_EVENTS } from '../../main/runtime/event-feed.js';

function task(id: string): Task {
  return {
    kind: 'task',
    id,
    contextId: 'ctx',
    status: { state: 'working', timestamp: new Date().toISOString() },
    history: [],
    artifacts: [],
    metadata: { agent: 'echo', requiresReview: true, createdAt: '', delegationDepth: 0, visitedAgents: ['echo'] },
  };
}

function event(t: Task, seq: number): TaskEvent {
  return statusUpdate(t, seq, t.status, false, { n: seq });
}

describe('EventFeed cursor', () => {
  it('numbers events per run, replays exactly what came after a cursor, and tells listeners the cursor', () => {
    const feed = new EventFeed(undefined, 'abc123');
    const t = task('t1');
    expect(feed.cursor()).toBe('abc123:0');
    const heard: string[] = [];
    feed.listen((_e, _t, cursor) => heard.push(cursor));
    for (let i = 1; i <= 5; i += 1) feed.publish(event(t, i), t);
    expect(heard).toEqual(['abc123:1', 'abc123:2', 'abc123:3', 'abc123:4', 'abc123:5']);
    expect(feed.cursor()).toBe('abc123:5');

    const replay = feed.since('abc123:2');
    expect(replay.kind).toBe('events');
    if (replay.kind !== 'events') return;
    expect(replay.entries.map((e) => e.cursor)).toEqual(['abc123:3', 'abc123:4', 'abc123:5']);
    expect(replay.entries.map((e) => (e.event as { metadata?: { n: number } }).metadata?.n)).toEqual([3, 4, 5]);
    expect(replay.entries[0]).toMatchObject({ agent: 'echo', state: 'working' });
    expect(feed.since('abc123:5')).toEqual({ kind: 'events', entries: [] });
    expect(feed.since('abc123:0').kind).toBe('events');
  });

  it('answers reset for a cursor of another run, one ahead of the feed, and anything that is not a cursor', () => {
    const feed = new EventFeed(undefined, 'abc123');
    const t = task('t1');
    feed.publish(event(t, 1), t);
    expect(feed.since('def456:1')).toMatchObject({
      kind: 'reset',
      reason: expect.stringContaining('another bridge run'),
    });
    expect(feed.since('abc123:9')).toMatchObject({ kind: 'reset' });
    for (const junk of ['', '7', 'abc123:', 'abc123:-1', 'abc123:1:2', 'ABC123:1', '../../etc:1']) {
      expect(feed.since(junk).kind, junk).toBe('reset');
    }
    // Two feeds (two bridge runs) never share a run id.
    expect(new EventFeed().runId).not.toBe(new EventFeed().runId);
  });

  it('keeps only the newest events by count and answers reset for a cursor older than them', () => {
    const feed = new EventFeed({ events: 3, bytes: FEED_REPLAY_BYTES }, 'r');
    const t = task('t1');
    for (let i = 1; i <= 10; i += 1) feed.publish(event(t, i), t);
    expect(feed.since('r:6')).toMatchObject({ kind: 'reset', reason: expect.stringContaining('older') });
    const replay = feed.since('r:7');
    expect(replay.kind === 'events' && replay.entries.map((e) => e.cursor)).toEqual(['r:8', 'r:9', 'r:10']);
  });

  it('keeps only as many bytes of reply as its budget: a long stream cannot pin memory', () => {
    const feed = new EventFeed({ events: FEED_REPLAY_EVENTS, bytes: 100_000 }, 'r');
    const t = task('t1');
    const chunk = 'x'.repeat(10_000);
    for (let i = 1; i <= 50; i += 1) {
      feed.publish(
        artifactUpdate(
          t,
          i,
          { artifactId: 'a', parts: [{ kind: 'text', text: chunk }] },
          { append: true, lastChunk: false },
        ),
        t,
      );
    }
    expect(feed.since('r:40').kind).toBe('reset');
    const replay = feed.since('r:45');
    expect(replay.kind === 'events' && replay.entries.length).toBe(5);
  });

  it('still replays correctly after its head was compacted many times', () => {
    const feed = new EventFeed({ events: 100, bytes: FEED_REPLAY_BYTES }, 'r');
    const t = task('t1');
    for (let i = 1; i <= 5_000; i += 1) feed.publish(event(t, i), t);
    const replay = feed.since('r:4950');
    expect(replay.kind === 'events' && replay.entries.map((e) => e.cursor)).toEqual(
      Array.from({ length: 50 }, (_, i) => `r:${4951 + i}`),
    );
    expect(feed.since('r:4899').kind).toBe('reset');
    expect(feed.since('r:4900').kind).toBe('events');
  });
});
