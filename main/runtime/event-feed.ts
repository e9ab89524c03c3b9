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
  private readonly kept: { entry: FeedEntry; seq: number; bytes: number }[] = [];
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
    const cursor = `${this.runId}:${this.seq}`;
    this.keep({ cursor, event, agent: task.metadata.agent, state: task.status.state });
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
    return { kind: 'events', entries: this.kept.slice(start).map((k) => k.entry) };
  }

  private keep(entry: FeedEntry): void {
    const bytes = approximateBytes(entry.event);
    this.kept.push({ entry, seq: this.seq, bytes });
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
  if (event.kind !== 'artifact-update') return 256 + (event.metadata ? JSON.stringify(event.metadata).length : 0);
  let n = 256;
  for (const part of event.artifact.parts) {
    if (part.kind === 'text') n += part.text.length;
    else if (part.kind === 'file') n += part.file.bytes?.length ?? 256;
    else n += JSON.stringify(part.data).length;
  }
  return n;
}
