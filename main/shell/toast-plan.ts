/**
 * The toast for an open question, as data: title, body, buttons and what each button answers. Pure; the
 * notifier (notifier.ts) turns it into an Electron Notification. What a person reads in it (title, body,
 * labels) is marked visible here (SECURITY.md#what-a-person-reads): a command and a title on one line.
 */
import type { Pending } from '../domain/pending.js';
import type { Task } from '../domain/task.js';
import { commandOf } from '../domain/pending.js';
import { visible } from '../domain/visible-text.js';
import { isLowRisk } from './low-risk.js';
import { clip } from './tray-state.js';

export interface ToastPlan {
  /** The task id: the toast's Tag on Windows (one toast per task), and the `task` field of its arguments. */
  id: string;
  title: string;
  body: string;
  /** Button labels, in order. */
  buttons: string[];
  /** Per button: the answer it sends, or `null` for "Review…" (open the approval window). */
  answers: (string | null)[];
  /** Which question this toast is about: a later question on the same task must not take its answer. */
  pendingKey: string;
}

/** Windows shows at most 5 buttons; 4 options leave the decision readable. */
const MAX_DECISION_BUTTONS = 4;
const REVIEW = 'Review…';
export const RECOMMENDED_MARK = '★';

export function toastPlanFor(
  task: Task,
  opts: { reminder?: boolean; protectedDirs?: readonly string[] } = {},
): ToastPlan | undefined {
  const pending = task.metadata.pending;
  if (!pending) return undefined;
  const agent = task.metadata.agent;
  const plan =
    pending.kind === 'permission'
      ? permissionPlan(agent, pending, opts.protectedDirs ?? [])
      : decisionPlan(agent, pending);
  const title = clip(visible(opts.reminder ? `Still waiting: ${plan.title}` : plan.title, 'one-line'), 120);
  return { id: task.id, pendingKey: pendingKeyOf(pending), ...plan, title };
}

export function pendingKeyOf(pending: Pending): string {
  return pending.kind === 'permission' ? `permission:${pending.requestId}` : `decision:${pending.createdAt}`;
}

type PlanParts = Pick<ToastPlan, 'title' | 'body' | 'buttons' | 'answers'>;

function permissionPlan(
  agent: string,
  pending: Extract<Pending, { kind: 'permission' }>,
  protectedDirs: readonly string[],
): PlanParts {
  const command = commandOf(pending.toolCall);
  const title = command ? `${agent} wants to run: ${command}` : `${agent} wants to: ${pending.toolCall.title}`;
  const body = pending.workspace !== undefined ? visible(pending.workspace, 'one-line') : 'No workspace given';
  const allow = pending.options.find((o) => o.kind === 'allow_once');
  const deny =
    pending.options.find((o) => o.kind === 'reject_once') ?? pending.options.find((o) => o.kind === 'reject_always');
  if (allow && deny && isLowRisk(pending.toolCall, { workspace: pending.workspace, protectedDirs })) {
    return { title, body, buttons: ['Allow', 'Deny'], answers: [allow.optionId, deny.optionId] };
  }
  return { title, body, buttons: [REVIEW], answers: [null] };
}

function decisionPlan(agent: string, pending: Extract<Pending, { kind: 'decision' }>): PlanParts {
  const title = `${agent} asks: ${pending.question}`;
  const body = [pending.workspace, `Recommended: ${pending.recommend}`]
    .filter((line): line is string => line !== undefined && line !== '')
    .map((line) => visible(line, 'one-line'))
    .join('\n');
  const mark = (o: string): string => visible(o === pending.recommend ? `${RECOMMENDED_MARK} ${o}` : o, 'one-line');
  if (pending.options.length <= MAX_DECISION_BUTTONS) {
    return { title, body, buttons: pending.options.map((o) => clip(mark(o), 40)), answers: [...pending.options] };
  }
  return { title, body, buttons: [clip(mark(pending.recommend), 40), REVIEW], answers: [pending.recommend, null] };
}
