/**
 * The activity window's data, kept in step with the bridge: a snapshot, then every feed event after its
 * cursor exactly once (the window pulls them in order; docs/contract.md#the-event-feed). Pure data: the
 * list and the detail render from it.
 */
import type { ActivityRow } from '../main/domain/activity.js';
import type { ActivityEntry, ActivitySnapshotItem } from '../main/schema/ipc.js';

export type StateGroup = 'running' | 'waiting' | 'needs' | 'finished';

export function groupOf(state: ActivityRow['state']): StateGroup {
  if (state === 'working') return 'running';
  if (state === 'submitted') return 'waiting';
  if (state === 'input-required' || state === 'auth-required') return 'needs';
  return 'finished';
}

/** The seq part of a cursor `<runId>:<seq>`. */
export function seqOf(cursor: string): number {
  return Number(cursor.slice(cursor.lastIndexOf(':') + 1));
}

export class ActivityModel {
  readonly rows = new Map<string, ActivityRow>();
  agents: string[] = [];
  cursor: string | undefined;
  /** Newest first: rebuilt lazily after rows were added or replaced. */
  private ordered: ActivityRow[] | undefined;

  reset(snapshot: ActivitySnapshotItem): void {
    this.rows.clear();
    for (const row of snapshot.rows) this.rows.set(row.taskId, row);
    this.agents = snapshot.agents.map((a) => a.agent);
    this.cursor = snapshot.cursor;
    this.ordered = undefined;
  }

  /** Applies events in order; returns the ids of the rows that changed. */
  apply(entries: ActivityEntry[], rows: ActivityRow[], cursor: string): Set<string> {
    const changed = new Set<string>();
    for (const { event, state } of entries) {
      const row = this.rows.get(event.taskId);
      if (!row) continue; // its row comes with `rows`
      if (event.kind === 'status-update') {
        if (row.state !== state) row.since = event.status.timestamp;
        row.state = state;
      } else {
        const line = lastLine(event.artifact.parts);
        if (line) row.lastLine = line;
      }
      changed.add(row.taskId);
    }
    // A new row object (or a new task) makes the order stale: sorting a thousand rows is cheap.
    if (rows.length) this.ordered = undefined;
    for (const row of rows) {
      if (!this.agents.includes(row.agent)) this.agents.push(row.agent);
      this.rows.set(row.taskId, row);
      changed.add(row.taskId);
    }
    this.cursor = cursor;
    return changed;
  }

  newestFirst(): ActivityRow[] {
    this.ordered ??= [...this.rows.values()].sort(
      (a, b) => b.createdAt.localeCompare(a.createdAt) || b.taskId.localeCompare(a.taskId),
    );
    return this.ordered;
  }

  summary(): Record<StateGroup, number> {
    const counts = { running: 0, waiting: 0, needs: 0, finished: 0 };
    for (const row of this.rows.values()) counts[groupOf(row.state)] += 1;
    return counts;
  }
}

/** The last non-empty line of a chunk's text, cut like the bridge's rows (domain/activity.ts). */
function lastLine(parts: { kind: string; text?: string }[]): string {
  for (let i = parts.length - 1; i >= 0; i -= 1) {
    const text = parts[i]!.kind === 'text' ? (parts[i]!.text ?? '') : '';
    const lines = text.slice(-800).split('\n');
    for (let j = lines.length - 1; j >= 0; j -= 1) {
      const line = lines[j]!.trim();
      if (line) return line.length > 200 ? `${line.slice(0, 199)}…` : line;
    }
  }
  return '';
}
