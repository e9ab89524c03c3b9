/**
 * What the audit log says about a task: one entry when it is created and one per event worth keeping
 * (a question asked, answered, auto-decided or expired; the task finished, failed, was canceled or
 * rejected). Progress, reminders, `working` and artifact chunks are not audited.
 *
 * Every string that came from outside the bridge (a caller's ids, texts and answers, an agent's status
 * texts) passes `clean` exactly once, here, before any cut; what the bridge made itself (task ids,
 * agent names from the config, states, numbers) goes in as it is. The log writes entries unchanged.
 */
import type { TaskEvent } from '../domain/events.js';
import { textOf, type Task } from '../domain/task.js';
import type { AuditEntryType } from '../schema/audit.js';

export type AuditRecord = { type: AuditEntryType } & Record<string, unknown>;

/** Credentials and the bridge's tokens out of one outside string (domain/redaction.ts `redact`). */
export interface Cleaner {
  text(text: string): string;
  /** A value of any shape (an answer may be structured): every string in it. */
  value(value: unknown): unknown;
}

/** Long texts (a prompt, a failure with its stderr) are cut: the task itself keeps the whole text. */
const PREVIEW_CHARS = 200;

export function createdEntry(task: Task, clean: Cleaner): AuditRecord {
  const first = task.history[0];
  return {
    type: 'task.created',
    ...aboutTask(task, clean),
    // Who created it, as the token proved (domain/authority.ts): "person" or "agent:<name>".
    ...(task.metadata.createdBy ? { createdBy: task.metadata.createdBy } : {}),
    ...(first ? { messageId: clean.text(first.messageId), text: previewOf(textOf(first.parts), clean) } : {}),
    delegationDepth: task.metadata.delegationDepth,
    visitedAgents: task.metadata.visitedAgents?.map((name) => clean.text(name)),
    state: task.status.state,
  };
}

/** A question's life events (`metadata.event`), audited whether or not they end the task. */
const QUESTION_EVENTS: ReadonlySet<unknown> = new Set([
  'pending-created',
  'pending-answered',
  'pending-auto-decided',
  'pending-expired',
  'pending-withdrawn',
]);

export function eventEntry(event: TaskEvent, task: Task, clean: Cleaner): AuditRecord | undefined {
  if (event.kind !== 'status-update') return undefined;
  const meta = event.metadata ?? {};
  // Most events are not audited (working, progress): nothing is built or cleaned for them.
  if (!event.final && !QUESTION_EVENTS.has(meta.event)) return undefined;
  const question = {
    ...(meta.pendingKind ? { pendingKind: clean.value(meta.pendingKind) } : {}),
    ...(meta.answer !== undefined ? { answer: clean.value(meta.answer) } : {}),
  };
  const about = (): ReturnType<typeof aboutTask> => aboutTask(task, clean);
  const preview = (text: string): string => previewOf(text, clean);
  switch (meta.event) {
    case 'pending-created':
      return { type: 'task.input-required', ...about(), ...question, question: preview(statusText(event)) };
    case 'pending-answered':
      return { type: 'task.answered', ...about(), ...question, by: clean.value(meta.by) };
    case 'pending-auto-decided':
      return { type: 'task.auto-decided', ...about(), ...question, rule: clean.value(meta.by) };
    case 'pending-expired':
      return { type: 'task.expired', ...about(), ...question };
    case 'pending-withdrawn':
      return { type: 'task.withdrawn', ...about(), ...question };
    default:
      break;
  }
  if (!event.final) return undefined;
  const reason = statusText(event);
  switch (event.status.state) {
    case 'completed':
      return {
        type: 'task.completed',
        ...about(),
        ...(task.metadata.warning ? { warning: clean.value(task.metadata.warning) } : {}),
        ...(task.metadata.truncated ? { truncated: task.metadata.truncated } : {}),
      };
    case 'failed':
      return {
        type: 'task.failed',
        ...about(),
        reason: preview(reason),
        retryable: task.metadata.retryable === true,
      };
    case 'canceled':
      return { type: 'task.canceled', ...about(), reason: preview(reason) };
    case 'rejected':
      return { type: 'task.rejected', ...about(), reason: preview(reason) };
    case 'auth-required':
      return { type: 'task.auth-required', ...about(), reason: preview(reason) };
    case 'input-required':
      return { type: 'task.input-required', ...about(), question: preview(reason) };
    default:
      return undefined;
  }
}

/** The task id is the bridge's and the agent name the config's; a caller may choose the contextId. */
function aboutTask(task: Task, clean: Cleaner): { taskId: string; agent: string; contextId: string } {
  return { taskId: task.id, agent: task.metadata.agent, contextId: clean.text(task.contextId) };
}

function statusText(event: Extract<TaskEvent, { kind: 'status-update' }>): string {
  return textOf(event.status.message?.parts ?? []);
}

/** Redacted before the cut: a cut first could split a credential past recognition. */
function previewOf(text: string, clean: Cleaner): string {
  const cleaned = clean.text(text);
  return cleaned.length > PREVIEW_CHARS ? `${cleaned.slice(0, PREVIEW_CHARS)}…` : cleaned;
}
