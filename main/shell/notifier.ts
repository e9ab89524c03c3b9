/**
 * One toast per new question (and again at its reminder), with buttons that answer it through the same
 * `dispatcher.answer` the window and the CLI use: the first answer wins, later ones get "already answered".
 * Toasts are a convenience, never the only way to answer: Focus mode drops them and users can turn them off,
 * so a failed toast is only logged — the tray badge and the approval window still show the question.
 */
import { createHash } from 'node:crypto';
import type { Identity } from '../domain/authority.js';
import { Notification, type ActivationArguments } from 'electron';
import type { TaskEvent } from '../domain/events.js';
import { isInterrupted, type Task } from '../domain/task.js';
import type { Dispatcher } from './bridge-host.js';
import { pendingKeyOf, toastPlanFor, type ToastPlan } from './toast-plan.js';
import { MAX_TAG_LENGTH, readActivation, toastXmlFor } from './toast-xml.js';

/** A toast's buttons are the person's own channel (in-process): recorded as "person (notification)". */
export const ANSWERED_BY_TOAST: Identity = { kind: 'person', via: 'notification' };

export interface NotifierOptions {
  dispatcher: () => Dispatcher | undefined;
  openApprovals: () => void;
  /** The activity window, on that task: where a question answered since shows who answered it and what came of it. */
  openActivity: (taskId: string) => void;
  icon?: string;
  /** Signs and checks toast arguments (toast-xml.ts activationKey); read at call time, reloads keep the token. */
  activationKey: () => Buffer | undefined;
  /** Folders a one-click Allow never reads (low-risk.ts): the data dir, credential folders. */
  protectedDirs: () => readonly string[];
  log: (message: string, err?: unknown) => void;
}

/**
 * A toast id never used before, `<taskId>.<n>`, for Notification `id` and the `tag` in its arguments. Electron's
 * presenter keeps a closed toast's object in its set (electron_api_notification.cc Notification::Close only hides
 * it and drops its delegate) and hands a press to the first object with the pressed tag in pointer order
 * (windows_toast_activator.cc HandleToastActivation): with one id per task, a task's second toast could have its
 * Allow swallowed by the first. `n` starts from the clock so ids differ across restarts too (toasts of an earlier
 * run stay in the Action Center). At most 64 UTF-16 units (electron_api_notification.cc kMaxTagLength): a longer
 * task id is replaced by a hash of it — the arguments carry the task id itself.
 */
export function toastIdFor(taskId: string, n: number): string {
  const suffix = `.${n.toString(36)}`;
  if (taskId.length + suffix.length <= MAX_TAG_LENGTH) return `${taskId}${suffix}`;
  const hash = createHash('sha256').update(taskId).digest('base64url');
  return `${hash.slice(0, MAX_TAG_LENGTH - suffix.length)}${suffix}`;
}

export class Notifier {
  /** Live toasts by task id; holding them keeps their `action` events alive (no GC). */
  private readonly shown = new Map<string, { notification: Notification; plan: ToastPlan; toastId: string }>();
  private readonly startedAt = new Date().toISOString();
  private nextToast = Date.now();

  constructor(private readonly opts: NotifierOptions) {}

  /** A feed listener: show on `pending-created` / `pending-reminder`, withdraw once the task moves on. */
  onTaskEvent(event: TaskEvent, task: Task): void {
    if (event.kind !== 'status-update') return;
    const what = event.metadata?.event;
    if (what === 'pending-created' || what === 'pending-reminder') this.show(task, what === 'pending-reminder');
    else if (!isInterrupted(task.status.state)) this.withdraw(task.id);
  }

  /**
   * For `Notification.handleActivation`: clicks and buttons on toasts whose Notification object is gone
   * (Action Center after a restart). Live toasts are handled by their own events, which Electron also fires.
   */
  onActivation(details: ActivationArguments): void {
    const activation = readActivation(details, this.opts.activationKey());
    if (activation.kind === 'ignored') return this.opts.log(`ignored a toast activation: ${activation.reason}`);
    // A press on the toast shown now is also delivered to its own events (HandleToastActivation does both).
    const live = (taskId: string | undefined): boolean =>
      !!taskId && !!activation.toastId && this.shown.get(taskId)?.toastId === activation.toastId;
    if (activation.kind === 'click') {
      if (live(activation.taskId)) return; // its own 'click' event opens the window
      const task = activation.taskId ? this.taskOrUndefined(activation.taskId) : undefined;
      // A toast of a question answered since: the approval window would not have it.
      if (task && !task.metadata.pending) return this.opts.openActivity(task.id);
      return this.opts.openApprovals();
    }
    const { taskId, pendingKey, index } = activation;
    if (live(taskId)) return;
    const task = this.taskOrUndefined(taskId);
    const pending = task?.metadata.pending;
    // Answered since (elsewhere, or by this very press through the live toast, whose answer came first): a press
    // must still show something, so the person sees who answered and what came of it, not a toast that did nothing.
    if (task && !pending) {
      this.opts.log(`a toast button for task ${taskId}: its question was answered already; showing the task`);
      return this.opts.openActivity(taskId);
    }
    if (!task || !pending) {
      this.opts.log(`ignored a toast button for task ${taskId}: no such task (pruned, or another data dir)`);
      return this.opts.openApprovals();
    }
    if (pendingKeyOf(pending) !== pendingKey) {
      this.opts.log(`ignored a toast button for task ${taskId}: it was about an earlier question`);
      return this.opts.openApprovals();
    }
    // A permission from before this start: the agent-side request did not survive; the window explains.
    if (pending.kind === 'permission' && pending.createdAt < this.startedAt) return this.opts.openApprovals();
    const plan = toastPlanFor(task, { protectedDirs: this.opts.protectedDirs() });
    if (plan) this.act(plan, index);
  }

  /**
   * On quit: let go of the toasts without closing them. A question still open stays in the Action Center, and a
   * press after the next start answers it through the signed arguments (onActivation).
   */
  release(): void {
    this.shown.clear();
  }

  private show(task: Task, reminder: boolean): void {
    const plan = toastPlanFor(task, { reminder, protectedDirs: this.opts.protectedDirs() });
    if (!plan || !Notification.isSupported()) return;
    this.withdraw(task.id);
    const toastId = toastIdFor(task.id, ++this.nextToast);
    const notification = new Notification({
      id: toastId,
      title: plan.title,
      body: plan.body,
      actions: plan.buttons.map((text) => ({ type: 'button' as const, text })),
      // Windows shows this instead of the fields above (toast-xml.ts says why); other platforms ignore it.
      toastXml: toastXmlFor(plan, {
        toastId,
        key: this.opts.activationKey(),
        icon: this.opts.icon,
        persistent: task.metadata.pending?.kind === 'permission',
      }),
      ...(this.opts.icon ? { icon: this.opts.icon } : {}),
    });
    notification.on('click', () => this.opts.openApprovals());
    notification.on('action', (details, legacyIndex) => this.act(plan, details?.actionIndex ?? legacyIndex));
    notification.on('failed', (_event, error) => this.opts.log(`notification for task ${plan.id} failed: ${error}`));
    this.shown.set(task.id, { notification, plan, toastId });
    notification.show();
  }

  private act(plan: ToastPlan, index: number): void {
    const answer = plan.answers[index];
    if (answer === null || answer === undefined) return this.opts.openApprovals();
    const dispatcher = this.opts.dispatcher();
    const pending = this.taskOrUndefined(plan.id)?.metadata.pending;
    // The task may have moved on to another question since this toast appeared: never answer that one blind.
    if (!dispatcher || !pending || pendingKeyOf(pending) !== plan.pendingKey) return this.opts.openApprovals();
    try {
      dispatcher.answer(plan.id, answer, ANSWERED_BY_TOAST);
    } catch (err) {
      this.opts.log(`answering task ${plan.id} from a notification failed`, err);
      this.opts.openApprovals();
    }
  }

  private withdraw(taskId: string): void {
    const entry = this.shown.get(taskId);
    if (!entry) return;
    this.shown.delete(taskId);
    entry.notification.close();
  }

  private taskOrUndefined(taskId: string): Task | undefined {
    try {
      return this.opts.dispatcher()?.get(taskId);
    } catch {
      return undefined;
    }
  }
}
