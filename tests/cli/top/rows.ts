/** Activity rows and snapshots as the bridge's `activity/snapshot` returns them (main/domain/activity.ts activityRow). */
import type { ActivityRow, ActivitySnapshot } from '../../../main/schema/activity.js';

export function row(taskId: string, extra: Partial<ActivityRow> = {}): ActivityRow {
  return {
    taskId,
    contextId: `ctx-${taskId}`,
    agent: 'echo',
    caller: 'person',
    chain: ['echo'],
    brief: `brief of ${taskId}`,
    state: 'working',
    since: '2026-12-01T10:00:00.000Z',
    createdAt: '2026-12-01T10:00:00.000Z',
    ...extra,
  };
}

export function snapshot(rows: ActivityRow[], cursor = 'abc:1'): ActivitySnapshot {
  return {
    cursor,
    rows,
    agents: [{ agent: 'echo', running: 0, waiting: 0, questions: 0 }],
    summary: { running: 0, waiting: 0, needsYou: 0, finished: 0 },
    truncated: false,
  };
}
