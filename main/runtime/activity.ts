/**
 * The activity view of the running bridge: a snapshot of every task (newest first) or one task's detail,
 * each with the feed cursor it is current at (docs/contract.md#activity). Everything comes from the
 * dispatcher's reads (what `tasks/get` and `tasks/list` return: scrubbed, depth-capped), never more.
 */
import {
  activityRow,
  activitySummary,
  agentActivity,
  withQueuePositions,
  type ActivityRow,
  type ActivitySummary,
  type AgentActivity,
} from '../domain/activity.js';
import type { Task } from '../domain/task.js';
import type { Dispatcher } from './dispatcher.js';
import type { FeedEntry } from './event-feed.js';

/** How many progress notes a detail carries at most: the latest ones. */
export const ACTIVITY_MAX_NOTES = 500;

export interface ActivitySnapshotView {
  cursor: string;
  rows: ActivityRow[];
  agents: AgentActivity[];
  summary: ActivitySummary;
  truncated: boolean;
}

export interface ActivityNoteView {
  kind: string;
  text: string;
  data?: unknown;
}

export interface ActivityDetailView {
  cursor: string;
  row: ActivityRow;
  task: Task;
  notes: ActivityNoteView[];
  children: ActivityRow[];
}

/** What `since` answers: a batch of events with the rows they changed, or a fresh snapshot. */
export type ActivityUpdateView =
  | { kind: 'events'; cursor: string; entries: FeedEntry[]; rows: ActivityRow[]; more: boolean }
  | { kind: 'reset'; snapshot: ActivitySnapshotView };

export class Activity {
  constructor(private readonly dispatcher: Dispatcher) {}

  /**
   * The newest `limit` tasks and the cursor to follow them with. Synchronous on purpose: the reads
   * deliver every event written so far to the feed first (the store's reads commit pending writes), and
   * the cursor is taken right after, in the same turn, so snapshot-then-events has no gap and no overlap.
   */
  snapshot(limit: number): ActivitySnapshotView {
    const page = this.dispatcher.list({ pageSize: limit, includeArtifacts: true, maxBytes: Number.MAX_SAFE_INTEGER });
    const rows = withQueuePositions(page.tasks.map(activityRow));
    return {
      rows,
      agents: agentActivity(this.dispatcher.registry.names(), rows),
      summary: activitySummary(rows),
      truncated: page.totalSize > rows.length,
      cursor: this.dispatcher.feed.cursor(),
    };
  }

  /**
   * The feed's events after `cursor`, at most `max` of them (`more` when there are further ones), with the
   * current row of every task a status event among them was about; or, when the feed no longer has them
   * all, a fresh snapshot. A reader that always asks with the last cursor it got sees every event once.
   */
  since(cursor: string, max: number, limit: number): ActivityUpdateView {
    const replay = this.dispatcher.feed.since(cursor);
    if (replay.kind === 'reset') return { kind: 'reset', snapshot: this.snapshot(limit) };
    const entries = replay.entries.slice(0, max);
    const changed = new Set(entries.filter((e) => e.event.kind === 'status-update').map((e) => e.event.taskId));
    return {
      kind: 'events',
      cursor: entries.at(-1)?.cursor ?? cursor,
      entries,
      rows: this.rowsOf([...changed]),
      more: replay.entries.length > entries.length,
    };
  }

  /** The current rows of these tasks (those that no longer exist are left out), with queue places. */
  rowsOf(taskIds: string[]): ActivityRow[] {
    if (taskIds.length === 0) return [];
    const tasks: Task[] = [];
    for (const id of taskIds) {
      try {
        tasks.push(this.dispatcher.get(id));
      } catch {
        // Pruned since: nothing to show.
      }
    }
    // Queue places count every waiting task of the bridge, not only these.
    const waiting = this.dispatcher.list({ states: ['submitted'], pageSize: 10_000, includeArtifacts: false }).tasks;
    const ids = new Set(tasks.map((t) => t.id));
    const rows = withQueuePositions([...tasks, ...waiting.filter((t) => !ids.has(t.id))].map(activityRow));
    return rows.filter((r) => ids.has(r.taskId));
  }

  /** One task in full, with its progress notes and the tasks it delegated (among the newest `limit`). */
  detail(taskId: string, limit: number): ActivityDetailView {
    const notes: ActivityNoteView[] = [];
    // Replays the stored events (flushing first), then stops listening at once.
    this.dispatcher
      .subscribe(taskId, 0, (event) => {
        if (event.kind !== 'status-update') return;
        const note = progressNote(event.metadata);
        if (note) notes.push(note);
      })
      .unsubscribe();
    const task = this.dispatcher.get(taskId);
    const others = this.dispatcher.list({ pageSize: limit, includeArtifacts: false }).tasks;
    const children = withQueuePositions(others.filter((t) => t.metadata.parentTaskId === taskId).map(activityRow));
    return {
      row: withQueuePositions([activityRow(task)])[0]!,
      task,
      notes: notes.slice(-ACTIVITY_MAX_NOTES),
      children,
      cursor: this.dispatcher.feed.cursor(),
    };
  }
}

/** The progress note an event's metadata carries (`{event: 'progress', progress: {...}}`), if any. */
export function progressNote(metadata: Record<string, unknown> | undefined): ActivityNoteView | undefined {
  if (metadata?.event !== 'progress') return undefined;
  const p = metadata.progress as Record<string, unknown> | undefined;
  if (!p || typeof p.kind !== 'string' || typeof p.text !== 'string') return undefined;
  return { kind: p.kind, text: p.text, ...(p.data !== undefined ? { data: p.data } : {}) };
}
