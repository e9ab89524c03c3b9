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
  const entry = aboutTask('task.created', task, clean);
  // Who created it, as the token proved (domain/authority.ts): "person" or "agent:<name>".
  if (task.metadata.createdBy) entry.createdBy = task.metadata.createdBy;
  if (first) {
    entry.messageId = clean.text(first.messageId);
    entry.text = previewOf(textOf(first.parts), clean);
  }
  entry.delegationDepth = task.metadata.delegationDepth;
  entry.visitedAgents = task.metadata.visitedAgents?.map((name) => clean.text(name));
  entry.state = task.status.state;
  return entry;
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
  // Each entry is one object, its fields added in the order they are written (no spread copies).
  switch (meta.event) {
    case 'pending-created': {
      const entry = questionEntry('task.input-required', task, meta, clean);
      entry.question = previewOf(statusText(event), clean);
      return entry;
    }
    case 'pending-answered': {
      const entry = questionEntry('task.answered', task, meta, clean);
      entry.by = clean.value(meta.by);
      return entry;
    }
    case 'pending-auto-decided': {
      const entry = questionEntry('task.auto-decided', task, meta, clean);
      entry.rule = clean.value(meta.by);
      return entry;
    }
    case 'pending-expired':
      return questionEntry('task.expired', task, meta, clean);
    case 'pending-withdrawn':
      return questionEntry('task.withdrawn', task, meta, clean);
    default:
      break;
  }
  if (!event.final) return undefined;
  switch (event.status.state) {
    case 'completed': {
      const entry = aboutTask('task.completed', task, clean);
      if (task.metadata.warning) entry.warning = clean.value(task.metadata.warning);
      if (task.metadata.truncated) entry.truncated = task.metadata.truncated;
      return entry;
    }
    case 'failed': {
      const entry = withReason('task.failed', task, event, clean);
      entry.retryable = task.metadata.retryable === true;
      return entry;
    }
    case 'canceled':
      return withReason('task.canceled', task, event, clean);
    case 'rejected':
      return withReason('task.rejected', task, event, clean);
    case 'auth-required':
      return withReason('task.auth-required', task, event, clean);
    case 'input-required': {
      const entry = aboutTask('task.input-required', task, clean);
      entry.question = previewOf(statusText(event), clean);
      return entry;
    }
    default:
      return undefined;
  }
}

/**
 * The fields every task entry starts with. The task id is the bridge's and the agent name the config's;
 * a caller may choose the contextId.
 */
function aboutTask(type: AuditEntryType, task: Task, clean: Cleaner): AuditRecord {
  return { type, taskId: task.id, agent: task.metadata.agent, contextId: clean.text(task.contextId) };
}

/** A question's entry: what kind of question, and the answer when there is one. */
function questionEntry(type: AuditEntryType, task: Task, meta: Record<string, unknown>, clean: Cleaner): AuditRecord {
  const entry = aboutTask(type, task, clean);
  if (meta.pendingKind) entry.pendingKind = clean.value(meta.pendingKind);
  if (meta.answer !== undefined) entry.answer = clean.value(meta.answer);
  return entry;
}

function withReason(
  type: AuditEntryType,
  task: Task,
  event: Extract<TaskEvent, { kind: 'status-update' }>,
  clean: Cleaner,
): AuditRecord {
  const entry = aboutTask(type, task, clean);
  entry.reason = previewOf(statusText(event), clean);
  return entry;
}

function statusText(event: Extract<TaskEvent, { kind: 'status-update' }>): string {
  return textOf(event.status.message?.parts ?? []);
}

/** Redacted before the cut: a cut first could split a credential past recognition. */
function previewOf(text: string, clean: Cleaner): string {
  const cleaned = clean.text(text);
  return cleaned.length > PREVIEW_CHARS ? `${cleaned.slice(0, PREVIEW_CHARS)}…` : cleaned;
}
