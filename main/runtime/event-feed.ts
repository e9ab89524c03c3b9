import type { TaskEvent } from '../domain/events.js';
import type { Task, TaskState } from '../domain/task.js';
import type { EventSink } from '../ports.js';

/**
 * How many published events the feed keeps for a resuming reader, and how many bytes of them at most
 * (an estimate: the JSON size of each event). Past either, the oldest go; a reader whose cursor is older
 * is told to take a fresh snapshot (docs/contract.md#the-event-feed). 10,000 events covers minutes of a
 * busy bridge; 32 MB keeps a streamed reply from pinning more than that in memory.
 */
export const FEED_REPLAY_EVENTS = 10_000;
export const FEED_REPLAY_BYTES = 32 * 1024 * 1024;

/** One published event as the feed keeps it: its cursor, and the task facts a reader shows with it. */
export interface FeedEntry {
  /** `<runId>:<seq>`: resume after this event with `since(cursor)`. */
  cursor: string;
  event: TaskEvent;
  agent: string;
  state: TaskState;
}

export type FeedListener = (event: TaskEvent, task: Task, cursor: string) => void;

/** What `since` answers: the events after the cursor, in order, or `reset` (take a fresh snapshot). */
export type FeedReplay = { kind: 'events'; entries: FeedEntry[] } | { kind: 'reset'; reason: string };

/**
 * The bridge-wide event feed: every task's events, for the desktop shell, `contactor watch`, the SSE
 * feed and the activity view. Each event gets the next number of this bridge run; the last ones are kept
 * so a reader that reconnects (a window reopened, a laptop woken) gets exactly what it missed. A listener
 * that throws is dropped from this one event only; it never breaks the bridge.
 */
export class EventFeed implements EventSink {
  private readonly listeners = new Set<FeedListener>();
  /** Changes with every bridge run: a cursor from an earlier run can never match this run's numbers. */
  readonly runId: string;
  private seq = 0;
  /**
   * What a resuming reader may still ask for: the event and the task facts of its moment, flat. Its cursor
   * and FeedEntry are made only when a reader asks (`since`): most events are never replayed.
   */
  private readonly kept: { seq: number; event: TaskEvent; agent: string; state: TaskState; bytes: number }[] = [];
  private head = 0;
  private keptBytes = 0;

  constructor(
    private readonly limits: { events: number; bytes: number } = {
      events: FEED_REPLAY_EVENTS,
      bytes: FEED_REPLAY_BYTES,
    },
    runId: string = crypto.randomUUID().slice(0, 8),
  ) {
    this.runId = runId;
  }

  /** The cursor of the last event published (`<runId>:0` before the first). */
  cursor(): string {
    return `${this.runId}:${this.seq}`;
  }

  publish(event: TaskEvent, task: Task): void {
    this.seq += 1;
    this.keep(event, task.metadata.agent, task.status.state);
    if (this.listeners.size === 0) return;
    const cursor = this.cursor();
    for (const listener of this.listeners) {
      try {
        listener(event, task, cursor);
      } catch {
        // A consumer's bug must not stop the task that produced the event.
      }
    }
  }

  listen(listener: FeedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The events after `cursor`, or `reset` when they are no longer all here (the cursor is older than
   * what is kept, from another bridge run, or not a cursor). Call `listen` in the same event-loop turn
   * to continue without a gap or a duplicate.
   */
  since(cursor: string): FeedReplay {
    const match = /^([0-9A-Za-z]{1,32}):(\d{1,15})$/.exec(cursor.trim());
    if (!match) return { kind: 'reset', reason: 'not a cursor of this feed' };
    if (match[1] !== this.runId) return { kind: 'reset', reason: 'the cursor is from another bridge run' };
    const after = Number(match[2]);
    if (after > this.seq) return { kind: 'reset', reason: 'the cursor is ahead of this feed' };
    if (after === this.seq) return { kind: 'events', entries: [] };
    const oldest = this.kept[this.head]?.seq ?? this.seq + 1;
    if (after + 1 < oldest) return { kind: 'reset', reason: 'the cursor is older than the events kept' };
    const start = this.head + (after + 1 - oldest);
    return {
      kind: 'events',
      entries: this.kept
        .slice(start)
        .map(({ seq, event, agent, state }) => ({ cursor: `${this.runId}:${seq}`, event, agent, state })),
    };
  }

  private keep(event: TaskEvent, agent: string, state: TaskState): void {
    const bytes = approximateBytes(event);
    this.kept.push({ seq: this.seq, event, agent, state, bytes });
    this.keptBytes += bytes;
    while (this.kept.length - this.head > this.limits.events || this.keptBytes > this.limits.bytes) {
      const dropped = this.kept[this.head];
      if (!dropped) break;
      this.keptBytes -= dropped.bytes;
      this.head += 1;
    }
    // Drop the consumed head now and then, not on every event (shift is linear in the array's length).
    if (this.head > 1024 && this.head * 2 > this.kept.length) {
      this.kept.splice(0, this.head);
      this.head = 0;
    }
  }
}

/** The size an event takes kept: its text, bytes and data, plus a flat allowance for the rest. */
function approximateBytes(event: TaskEvent): number {
  if (event.kind !== 'artifact-update') return 256 + (event.metadata ? jsonSize(event.metadata) : 0);
  let n = 256;
  for (const part of event.artifact.parts) {
    if (part.kind === 'text') n += part.text.length;
    else if (part.kind === 'file') n += part.file.bytes?.length ?? 256;
    else n += jsonSize(part.data);
  }
  return n;
}

/**
 * About the length of `value` as JSON (its strings' lengths, a few characters per member), counted
 * without building the text: every event's metadata passes here. Event metadata and data parts come
 * from a parser or the bridge itself, so they are trees, never cycles.
 */
function jsonSize(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || typeof value !== 'object') return 8;
  let n = 2;
  if (Array.isArray(value)) for (const item of value) n += 1 + jsonSize(item);
  else for (const key in value) n += key.length + 4 + jsonSize((value as Record<string, unknown>)[key]);
  return n;
}
