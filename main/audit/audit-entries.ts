/**
 * What the audit log says about a task: one entry when it is created and one per event worth keeping
 * (a question asked, answered, auto-decided or expired; the task finished, failed, was canceled or
 * rejected). Progress, reminders, `working` and artifact chunks are not audited.
 */
import type { TaskEvent } from '../domain/events.js';
import { redact } from '../domain/redaction.js';
import { textOf, type Task } from '../domain/task.js';
import type { AuditEntryType } from '../schema/audit.js';

export type AuditRecord = { type: AuditEntryType } & Record<string, unknown>;

/** Long texts (a prompt, a failure with its stderr) are cut: the task itself keeps the whole text. */
const PREVIEW_CHARS = 200;

export function createdEntry(task: Task): AuditRecord {
  const first = task.history[0];
  return {
    type: 'task.created',
    ...about(task),
    // Who created it, as the token proved (domain/authority.ts): "person" or "agent:<name>".
    ...(task.metadata.createdBy ? { createdBy: task.metadata.createdBy } : {}),
    ...(first ? { messageId: first.messageId, text: preview(textOf(first.parts)) } : {}),
    delegationDepth: task.metadata.delegationDepth,
    visitedAgents: task.metadata.visitedAgents,
    state: task.status.state,
  };
}

export function eventEntry(event: TaskEvent, task: Task): AuditRecord | undefined {
  if (event.kind !== 'status-update') return undefined;
  const meta = event.metadata ?? {};
  const question = {
    ...(meta.pendingKind ? { pendingKind: meta.pendingKind } : {}),
    ...(meta.answer !== undefined ? { answer: meta.answer } : {}),
  };
  switch (meta.event) {
    case 'pending-created':
      return { type: 'task.input-required', ...about(task), ...question, question: preview(statusText(event)) };
    case 'pending-answered':
      return { type: 'task.answered', ...about(task), ...question, by: meta.by };
    case 'pending-auto-decided':
      return { type: 'task.auto-decided', ...about(task), ...question, rule: meta.by };
    case 'pending-expired':
      return { type: 'task.expired', ...about(task), ...question };
    case 'pending-withdrawn':
      return { type: 'task.withdrawn', ...about(task), ...question };
    default:
      break;
  }
  if (!event.final) return undefined;
  const reason = statusText(event);
  switch (event.status.state) {
    case 'completed':
      return {
        type: 'task.completed',
        ...about(task),
        ...(task.metadata.warning ? { warning: task.metadata.warning } : {}),
        ...(task.metadata.truncated ? { truncated: task.metadata.truncated } : {}),
      };
    case 'failed':
      return {
        type: 'task.failed',
        ...about(task),
        reason: preview(reason),
        retryable: task.metadata.retryable === true,
      };
    case 'canceled':
      return { type: 'task.canceled', ...about(task), reason: preview(reason) };
    case 'rejected':
      return { type: 'task.rejected', ...about(task), reason: preview(reason) };
    case 'auth-required':
      return { type: 'task.auth-required', ...about(task), reason: preview(reason) };
    case 'input-required':
      return { type: 'task.input-required', ...about(task), question: preview(reason) };
    default:
      return undefined;
  }
}

function about(task: Task): { taskId: string; agent: string; contextId: string } {
  return { taskId: task.id, agent: task.metadata.agent, contextId: task.contextId };
}

function statusText(event: Extract<TaskEvent, { kind: 'status-update' }>): string {
  return textOf(event.status.message?.parts ?? []);
}

/** Redacted before the cut (the audit log redacts again, whole entries, with the bridge's tokens). */
function preview(text: string): string {
  const clean = redact(text);
  return clean.length > PREVIEW_CHARS ? `${clean.slice(0, PREVIEW_CHARS)}…` : clean;
}
