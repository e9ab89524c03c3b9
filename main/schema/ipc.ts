/**
 * The one IPC contract between the desktop app's windows (approvals, activity) and the main process. Main validates every payload the
 * renderer sends with these schemas (and checks the sender); the preload and the renderer import only the
 * channel names and the types.
 *
 * The schemas are marked pure so the preload bundle, which needs only `IPC_CHANNELS`, drops zod.
 */
import { z } from 'zod';
import type { ActivityRow, ActivitySummary, AgentActivity } from '../domain/activity.js';
import type { TaskEvent } from '../domain/events.js';
import type { Pending } from '../domain/pending.js';
import type { Task, TaskState } from '../domain/task.js';

export const IPC_CHANNELS = {
  /** renderer → main (invoke): the open questions, oldest first. */
  listPending: 'contactor:pending/list',
  /** renderer → main (invoke): answer one question. */
  answer: 'contactor:pending/answer',
  /** main → renderer (send): the list changed; fetch it again. */
  changed: 'contactor:pending/changed',
} as const;

/** `listPending` takes nothing; anything else is a bug or a forged call. */
export const ListPendingRequestSchema = /* @__PURE__ */ z.undefined({ error: 'listPending takes no arguments' });

export const AnswerRequestSchema = /* @__PURE__ */ z
  .object({
    taskId: z
      .string({ error: 'taskId must be a string' })
      .min(1, 'taskId must not be empty')
      .max(200, 'taskId is too long'),
    answer: z
      .string({ error: 'answer must be a string: an option id, or a decision option verbatim' })
      .min(1, 'answer must not be empty')
      .max(2000, 'answer is too long'),
  })
  .strict();
export type AnswerRequest = z.infer<typeof AnswerRequestSchema>;

/** One open question as the approval window shows it. */
export interface PendingItem {
  taskId: string;
  agent: string;
  /** The task's own request, first line, for context. */
  request: string;
  /** For permissions: the full command (or the tool call's title when it carries no command). */
  command?: string;
  pending: Pending;
}

export type AnswerResult =
  | { ok: true; taskId: string; state: TaskState }
  /** An expected refusal (already answered, lost after a restart, no such option): shown to the person. */
  | { ok: false; taskId: string; reason: string; message: string };

/** What the preload exposes as `window.contactor`. */
export interface ContactorApi {
  listPending(): Promise<PendingItem[]>;
  answer(taskId: string, answer: string): Promise<AnswerResult>;
  /** Calls `listener` whenever the pending list may have changed; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
  /** Opens the activity window. */
  openActivity(): Promise<void>;
}

// ───────────────────────── the activity window ─────────────────────────

/** The approval window's way to the activity window (renderer → main, invoke, no arguments). */
export const OPEN_ACTIVITY_CHANNEL = 'contactor:activity/open';

export const ACTIVITY_CHANNELS = {
  /** invoke: a fresh snapshot of every task, with the feed cursor it is current at. */
  snapshot: 'contactor:activity/snapshot',
  /** invoke `{cursor}`: the events after it (a batch; `more` when there are further ones), or a reset. */
  since: 'contactor:activity/since',
  /** invoke `{taskId}`: one task in full. */
  task: 'contactor:activity/task',
  /** invoke `{taskId}`. */
  cancel: 'contactor:activity/cancel',
  /** invoke `{taskId, answer}`: the same answer path as the approval window. */
  answer: 'contactor:activity/answer',
  /** invoke `{taskId}`: the task's brief again, as a new task under a new messageId. */
  sendAgain: 'contactor:activity/send-again',
  /** invoke `{taskId}`: the task id onto the clipboard. */
  copyTaskId: 'contactor:activity/copy-task-id',
  /** invoke `{agent}`: opens the agent's stderr log. */
  openLog: 'contactor:activity/open-log',
  /** invoke `{taskId, artifactId, part}`: saves one file or data part through a save dialog. */
  save: 'contactor:activity/save',
  /** main → renderer (send): the feed has new events; pull them with `since`. */
  changed: 'contactor:activity/changed',
  /** main → renderer (send) `taskId`: show this task (a toast of a question answered since was pressed). */
  showTask: 'contactor:activity/show-task',
} as const;

const taskIdField = () =>
  z.string({ error: 'taskId must be a string' }).min(1, 'taskId must not be empty').max(200, 'taskId is too long');

export const NoArgumentsSchema = /* @__PURE__ */ z.undefined({ error: 'this call takes no arguments' });
export const SinceRequestSchema = /* @__PURE__ */ z
  .object({ cursor: z.string({ error: 'cursor must be a string' }).min(1).max(100, 'cursor is too long') })
  .strict();
export const TaskRequestSchema = /* @__PURE__ */ z.object({ taskId: taskIdField() }).strict();
export const ActivityAnswerRequestSchema = AnswerRequestSchema;
export const OpenLogRequestSchema = /* @__PURE__ */ z
  .object({ agent: z.string({ error: 'agent must be a string' }).min(1).max(200) })
  .strict();
export const SaveRequestSchema = /* @__PURE__ */ z
  .object({
    taskId: taskIdField(),
    artifactId: z.string({ error: 'artifactId must be a string' }).min(1).max(200),
    part: z.number({ error: 'part must be a number' }).int().min(0).max(100_000),
  })
  .strict();

/** One feed event as the window gets it: its cursor, the event, and the task's agent and state then. */
export interface ActivityEntry {
  cursor: string;
  event: TaskEvent;
  agent: string;
  state: TaskState;
}

export type ActivityUpdate =
  /** `rows`: the current row of every task a status event in `entries` was about. */
  | { kind: 'events'; cursor: string; entries: ActivityEntry[]; rows: ActivityRow[]; more: boolean }
  /** The cursor is no longer served (too old, another bridge run): start again from this snapshot. */
  | { kind: 'reset'; snapshot: ActivitySnapshotItem };

export interface ActivitySnapshotItem {
  cursor: string;
  rows: ActivityRow[];
  agents: AgentActivity[];
  summary: ActivitySummary;
  truncated: boolean;
}

export interface ActivityDetailItem {
  cursor: string;
  row: ActivityRow;
  task: Task;
  notes: { kind: string; text: string; data?: unknown }[];
  children: ActivityRow[];
}

export type ActionResult = { ok: true; taskId: string } | { ok: false; taskId: string; message: string };

/** What the activity window's preload exposes as `window.contactorActivity`: functions only. */
export interface ActivityApi {
  snapshot(): Promise<ActivitySnapshotItem>;
  since(cursor: string): Promise<ActivityUpdate>;
  task(taskId: string): Promise<ActivityDetailItem>;
  cancel(taskId: string): Promise<ActionResult>;
  answer(taskId: string, answer: string): Promise<AnswerResult>;
  sendAgain(taskId: string): Promise<ActionResult>;
  copyTaskId(taskId: string): Promise<void>;
  openLog(agent: string): Promise<ActionResult>;
  save(taskId: string, artifactId: string, part: number): Promise<ActionResult>;
  /** Calls `listener` when the feed has new events; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
  /** Calls `listener` with a task main wants shown (activity-window.ts `show(taskId)`); returns the unsubscribe. */
  onShowTask(listener: (taskId: string) => void): () => void;
}
