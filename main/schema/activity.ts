/**
 * The activity view's wire shapes (docs/contract.md#activity): one row per task, per-agent counts, the
 * summary, and one task's detail. `activity/snapshot` and `activity/task` return them over JSON-RPC;
 * the desktop app's activity window gets the same shapes over IPC.
 */
import { z } from 'zod';
import type { ActivityRow, ActivitySummary, AgentActivity } from '../domain/activity.js';
import { TASK_STATES } from '../domain/task.js';

/** How many tasks a snapshot lists at most (newest first); `truncated` says when there were more. */
export const ACTIVITY_MAX_ROWS = 2_000;

export const ActivityRowSchema = z.object({
  taskId: z.string(),
  contextId: z.string(),
  agent: z.string(),
  /** Who sent it: `person`, or the calling agent's name (task.metadata.createdBy). */
  caller: z.string(),
  /** The delegation chain that led here, ending with this task's agent (task.metadata.visitedAgents). */
  chain: z.array(z.string()),
  /** The task it was delegated from, when the calling agent said so and that task exists. */
  parentTaskId: z.string().optional(),
  /** The brief's first non-empty line. */
  brief: z.string(),
  state: z.enum(TASK_STATES),
  /** When the task entered its state (ISO-8601). */
  since: z.string(),
  createdAt: z.string(),
  /** An open question: its kind and a one-line title. */
  question: z.object({ kind: z.enum(['permission', 'decision']), title: z.string() }).optional(),
  /** For a waiting (`submitted`) task: its place in its agent's queue, 1 = next. */
  queuePosition: z.number().int().positive().optional(),
  /** The last non-empty line of its reply so far, or of its status text. */
  lastLine: z.string().optional(),
  /** What follows the last line in its text (domain/activity.ts): a line break or blanks. */
  lastLineEnd: z.enum(['space', 'break']).optional(),
});

export const AgentActivitySchema = z.object({
  agent: z.string(),
  running: z.number().int().nonnegative(),
  waiting: z.number().int().nonnegative(),
  questions: z.number().int().nonnegative(),
});

export const ActivitySummarySchema = z.object({
  running: z.number().int().nonnegative(),
  waiting: z.number().int().nonnegative(),
  needsYou: z.number().int().nonnegative(),
  finished: z.number().int().nonnegative(),
});

export const ActivitySnapshotSchema = z.object({
  /** Resume the event feed after this snapshot: `GET /events?since=<cursor>` (or `Last-Event-ID`). */
  cursor: z.string(),
  rows: z.array(ActivityRowSchema),
  agents: z.array(AgentActivitySchema),
  summary: ActivitySummarySchema,
  /** More tasks exist than the snapshot lists (ACTIVITY_MAX_ROWS). */
  truncated: z.boolean(),
});
export type ActivitySnapshot = z.infer<typeof ActivitySnapshotSchema>;

/** A progress note of the task (tool call, plan, thought), as its stream carried it. */
export const ActivityNoteSchema = z.object({
  kind: z.string(),
  text: z.string(),
  data: z.unknown().optional(),
});
export type ActivityNote = z.infer<typeof ActivityNoteSchema>;

/**
 * One task in full: the task exactly as `tasks/get` returns it (scrubbed, depth-capped), the progress
 * notes its stream carried, and the tasks it delegated.
 */
export const ActivityDetailSchema = z.object({
  cursor: z.string(),
  row: ActivityRowSchema,
  task: z.record(z.string(), z.unknown()),
  notes: z.array(ActivityNoteSchema),
  children: z.array(ActivityRowSchema),
});
export type ActivityDetail = z.infer<typeof ActivityDetailSchema>;

export const ActivitySnapshotParamsSchema = z
  .object({
    limit: z
      .number()
      .int()
      .min(1, `limit must be 1–${ACTIVITY_MAX_ROWS}`)
      .max(ACTIVITY_MAX_ROWS, `limit must be 1–${ACTIVITY_MAX_ROWS}`)
      .default(ACTIVITY_MAX_ROWS),
  })
  .default({ limit: ACTIVITY_MAX_ROWS });

export const ActivityTaskParamsSchema = z.object({
  taskId: z.string({ error: 'taskId is required' }).min(1, 'taskId must not be empty'),
});

/** The schemas describe exactly the domain's shapes (domain/activity.ts): a drift fails to compile. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const SHAPES_MATCH: [
  Same<z.infer<typeof ActivityRowSchema>, ActivityRow>,
  Same<z.infer<typeof AgentActivitySchema>, AgentActivity>,
  Same<z.infer<typeof ActivitySummarySchema>, ActivitySummary>,
] = [true, true, true];
export type { ActivityRow, ActivitySummary, AgentActivity };
