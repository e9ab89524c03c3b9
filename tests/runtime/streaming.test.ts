import { afterEach, describe, expect, it } from 'vitest';
import type { ArtifactUpdateEvent, StreamEvent } from '../../main/domain/events.js';
import { textOf } from '../../main/domain/task.js';
import { FakeBackend, Gate, streaming } from '../fixtures/fake-backends.js';
import { Core } from './core.js';

const PIECE = 'x'.repeat(99) + '\n';
const TWO_THOUSAND = Array.from({ length: 20 }, () => PIECE);

/** Streams `before`, waits for `gate`, then streams `after`. */
function pausing(before: string[], gate: Gate, after: string[]): FakeBackend {
  return new FakeBackend(async (_turn, report) => {
    for (const chunk of before) report.text(chunk);
    await gate.promise;
    for (const chunk of after) report.text(chunk);
    return { kind: 'completed' };
  });
}

function artifactEvents(events: StreamEvent[]): ArtifactUpdateEvent[] {
  return events.filter((e): e is ArtifactUpdateEvent => e.kind === 'artifact-update');
}

describe('streaming', () => {
  let core: Core;
  afterEach(() => core.close());

  it('turns 2,000 characters of text into several chunks: append false first, then true, lastChunk at the end', async () => {
    core = new Core();
    core.add('talker', streaming(TWO_THOUSAND, { yieldBetween: true }));
    const task = await core.send('talker', 'talk', { blocking: true });
    const chunks = artifactEvents(core.eventsOf(task.id));
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(chunks.map((c) => c.append)).toEqual([false, ...chunks.slice(1).map(() => true)]);
    expect(chunks.map((c) => c.lastChunk)).toEqual([...chunks.slice(1).map(() => false), true]);
    expect(new Set(chunks.map((c) => c.artifact.artifactId)).size).toBe(1);
    const streamed = chunks.map((c) => textOf(c.artifact.parts)).join('');
    expect(streamed).toBe(TWO_THOUSAND.join(''));
    expect(textOf(task.artifacts[0]!.parts)).toBe(TWO_THOUSAND.join(''));
    // The last chunk comes before the task says it is completed.
    const events = core.eventsOf(task.id);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' }, final: true });
    expect(events.at(-2)).toMatchObject({ kind: 'artifact-update', lastChunk: true });
  });

  it('text that arrives in one event-loop turn leaves in two chunks (the first 512+ at once, the rest at the turn end), each at most 64 KiB', async () => {
    core = new Core();
    const kib = 'k'.repeat(1023) + '\n';
    const gate = new Gate();
    const paused = new Gate();
    // 40 KiB in one turn, then (next turn) 100 KiB in one turn: a fast agent's pipe reads, as the bulk
    // benchmark sees them. Before: one event per 1 KiB chunk (140 events), now 6.
    core.add(
      'fast',
      new FakeBackend(async (_turn, report) => {
        for (let i = 0; i < 40; i++) report.text(kib);
        paused.resolve();
        await gate.promise;
        for (let i = 0; i < 100; i++) report.text(kib);
        await new Promise((r) => setImmediate(r));
        return { kind: 'completed' };
      }),
    );
    const task = await core.send('fast', 'go');
    // The first turn's end: the agent paused, then one setImmediate queued after the stream's own turn-end flush.
    await paused.promise;
    await new Promise((r) => setImmediate(r));
    gate.resolve();
    const done = await core.untilTerminal(task.id);
    const chunks = artifactEvents(core.eventsOf(task.id));
    expect(chunks.map((c) => textOf(c.artifact.parts).length)).toEqual([
      1024,
      39 * 1024,
      1024,
      64 * 1024,
      35 * 1024,
      0,
    ]);
    expect(chunks.map((c) => c.lastChunk)).toEqual([false, false, false, false, false, true]);
    expect(textOf(done.artifacts[0]!.parts)).toBe(kib.repeat(140));
  });

  it('a steady stream, one piece of 512 characters or more per turn, leaves one chunk per piece', async () => {
    core = new Core();
    const pieces = Array.from({ length: 5 }, (_, i) => String(i).repeat(600));
    core.add('steady', streaming(pieces, { yieldBetween: true }));
    const task = await core.send('steady', 'go', { blocking: true });
    const texts = artifactEvents(core.eventsOf(task.id)).map((c) => textOf(c.artifact.parts));
    expect(texts.filter((t) => t !== '')).toEqual(pieces);
  });

  it('gives every subscriber all events in order with increasing seq, after a snapshot', async () => {
    core = new Core();
    const gate = new Gate();
    core.add('talker', pausing(['hello '], gate, ['world']));
    const task = await core.send('talker', 'talk');
    const a: StreamEvent[] = [];
    const b: StreamEvent[] = [];
    const subA = core.dispatcher.subscribe(task.id, undefined, (e) => a.push(e));
    const subB = core.dispatcher.subscribe(task.id, undefined, (e) => b.push(e));
    gate.resolve();
    await core.untilTerminal(task.id);
    subA.unsubscribe();
    subB.unsubscribe();

    expect(a[0]).toMatchObject({ kind: 'task', task: { id: task.id } });
    expect(b).toEqual(a);
    const seqs = a.slice(1).map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs[0]).toBe(a[0]!.seq + 1);
    expect(a.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' }, final: true });
    expect(
      artifactEvents(a)
        .map((e) => textOf(e.artifact.parts))
        .join(''),
    ).toBe('hello world');
  });

  it('a late subscriber first gets the task as it is now, then only what follows', async () => {
    core = new Core();
    const gate = new Gate();
    const talker = core.add('talker', pausing(['early text'], gate, [' late text']));
    const task = await core.send('talker', 'talk');
    await talker.started();
    await core.untilEvent(task.id, (e) => e.kind === 'artifact-update');
    const late: StreamEvent[] = [];
    const sub = core.dispatcher.subscribe(task.id, undefined, (e) => late.push(e));
    gate.resolve();
    await core.untilTerminal(task.id);
    sub.unsubscribe();

    expect(late[0]).toMatchObject({ kind: 'task', task: { status: { state: 'working' } } });
    const first = late[0];
    const snapshot = first?.kind === 'task' ? first.task : undefined;
    expect(textOf(snapshot!.artifacts[0]!.parts)).toBe('early text');
    expect(
      artifactEvents(late)
        .map((e) => textOf(e.artifact.parts))
        .join(''),
    ).toBe(' late text');
  });

  it('subscribe with afterSeq replays the missed events from the store, then continues live', async () => {
    core = new Core();
    const gate = new Gate();
    const talker = core.add('talker', pausing(['one '], gate, ['two']));
    const task = await core.send('talker', 'talk');
    await talker.started();
    const first: StreamEvent[] = [];
    const sub = core.dispatcher.subscribe(task.id, 0, (e) => first.push(e));
    await core.untilEvent(task.id, (e) => e.kind === 'artifact-update');
    const seen = first.at(-1)!.seq;
    sub.unsubscribe();

    const resumed: StreamEvent[] = [];
    const resume = core.dispatcher.subscribe(task.id, 1, (e) => resumed.push(e));
    gate.resolve();
    await core.untilTerminal(task.id);
    resume.unsubscribe();

    expect(resumed.map((e) => e.seq)).toEqual(
      core
        .eventsOf(task.id)
        .filter((e) => e.seq > 1)
        .map((e) => e.seq),
    );
    expect(resumed.slice(0, seen - 1)).toEqual(first.slice(1));

    // After the end, every event is still in the store in the same form.
    const replay: StreamEvent[] = [];
    core.dispatcher.subscribe(task.id, 0, (e) => replay.push(e)).unsubscribe();
    expect(replay).toEqual(core.eventsOf(task.id));
  });

  it('sends a snapshot when afterSeq is beyond the last event', async () => {
    core = new Core();
    core.add('talker', streaming(['hi']));
    const task = await core.send('talker', 'talk', { blocking: true });
    const got: StreamEvent[] = [];
    core.dispatcher.subscribe(task.id, 999, (e) => got.push(e)).unsubscribe();
    expect(got).toEqual([expect.objectContaining({ kind: 'task', task: expect.objectContaining({ id: task.id }) })]);
  });

  it('a subscriber that throws does not stop the task or the other subscribers', async () => {
    core = new Core();
    const gate = new Gate();
    core.add('talker', pausing([], gate, ['fine']));
    const task = await core.send('talker', 'talk');
    core.dispatcher.subscribe(task.id, undefined, (e) => {
      if (e.kind !== 'task') throw new Error('socket closed');
    });
    // From the first event on: whether the turn already started when the send answered (the in-memory
    // store commits at once) or not, this subscriber is owed every event, `working` included.
    const other: StreamEvent[] = [];
    core.dispatcher.subscribe(task.id, 0, (e) => other.push(e));
    gate.resolve();
    expect((await core.untilTerminal(task.id)).status.state).toBe('completed');
    expect(other.map((e) => (e.kind === 'status-update' ? e.status.state : e.kind))).toEqual([
      'working',
      'artifact-update',
      'completed',
    ]);
  });
});
