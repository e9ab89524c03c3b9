import type { Task } from '../domain/task.js';
import type { LiveTask } from './live-task.js';

/** How one question of a task ended: who or what answered it, with what. */
export interface QuestionRecord {
  kind: 'permission' | 'decision';
  /** The permission's title or command, or the decision's question. */
  about: string;
  /** `withdrawn`: the agent took its own request back (cancelled it, or ended its turn without waiting). */
  outcome: 'answered' | 'auto-decided' | 'expired' | 'withdrawn';
  answer?: string;
  by: string;
  at: string;
  rule?: number | string;
}

/**
 * Keeps the task's question history in `metadata.questions` (the audit trail `pending/list` and the
 * tray show; saved with the next state change) and returns the announcement of the outcome for the
 * task's stream and the bridge-wide feed. Call it after the state change, so a stream never shows the
 * old question's state after its answer.
 */
export function recordQuestion(live: LiveTask, record: Omit<QuestionRecord, 'at'>): () => void {
  const prior = Array.isArray(live.task.metadata.questions) ? (live.task.metadata.questions as QuestionRecord[]) : [];
  const entry: QuestionRecord = { ...record, at: new Date().toISOString() };
  live.patchMetadata({ questions: [...prior, entry] });
  const event =
    record.outcome === 'answered'
      ? 'pending-answered'
      : record.outcome === 'expired'
        ? 'pending-expired'
        : record.outcome === 'withdrawn'
          ? 'pending-withdrawn'
          : 'pending-auto-decided';
  return () =>
    live.announce({
      event,
      pendingKind: record.kind,
      by: record.by,
      ...(record.answer ? { answer: record.answer } : {}),
    });
}

/** A question as the history lists it: with its task and agent. */
export type AnsweredQuestion = QuestionRecord & { taskId: string; agent: string };

/** The questions recorded on `tasks`, newest first, at most `limit`. */
export function latestQuestions(tasks: Task[], limit: number): AnsweredQuestion[] {
  return tasks
    .flatMap((t) =>
      ((t.metadata.questions as QuestionRecord[] | undefined) ?? []).map((q) => ({
        ...q,
        taskId: t.id,
        agent: t.metadata.agent,
      })),
    )
    .sort((a, b) => b.at.localeCompare(a.at))
    .slice(0, limit);
}
