/**
 * The one IPC contract between the approval window and the main process. Main validates every payload the
 * renderer sends with these schemas (and checks the sender); the preload and the renderer import only the
 * channel names and the types.
 *
 * The schemas are marked pure so the preload bundle, which needs only `IPC_CHANNELS`, drops zod.
 */
import { z } from 'zod';
import type { Pending } from '../domain/pending.js';
import type { TaskState } from '../domain/task.js';

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
}
