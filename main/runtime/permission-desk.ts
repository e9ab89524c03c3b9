import { BridgeError } from '../domain/errors.js';
import { describePending, type PermissionOption, type PermissionPending } from '../domain/pending.js';
import { toolCallIdentity } from '../domain/tool-call-identity.js';
import type { PermissionOutcome, PermissionRequest } from '../ports.js';
import { matchRule } from './approval-rules.js';
import type { LiveTask } from './live-task.js';
import { allowOption, rejectOption } from './permission-answers.js';
import { recordQuestion } from './question-log.js';
import type { AgentSettings } from './registry.js';
import { RecentKeys } from './recent-keys.js';

interface Waiting {
  pending: PermissionPending;
  resolve: (outcome: PermissionOutcome) => void;
}

/** Hooks of the turn that asked: give the shard slot back and stop the clock while a person decides. */
export interface ParkHooks {
  onPark(): void;
  onResume(): void;
}

/**
 * The live half of permission questions: the stored promise each agent-side request awaits. The
 * question itself is durable (task metadata + state in the store); only these resolvers die with the
 * process, which is why an answer after a restart gets PendingLost instead of silence.
 */
/**
 * How many "allow always" tool calls are remembered per agent (the most recently allowed or used): each
 * is one distinct whole call (command, folder, input), so a person who allows hundreds is rare, and a
 * bridge that runs for weeks must not keep every one. Past it the least recently used is asked again.
 */
export const REMEMBERED_CALLS = 256;

export class PermissionDesk {
  private readonly queues = new Map<string, Waiting[]>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>[]>();
  /**
   * Per agent: tool calls a person allowed "always" (only ever offered by the agent itself), the
   * REMEMBERED_CALLS most recently allowed or used; a forgotten one is asked again.
   */
  private readonly remembered = new Map<string, RecentKeys>();

  /** Rules first; otherwise park the task in input-required until answered, canceled or expired. */
  ask(
    live: LiveTask,
    request: PermissionRequest,
    settings: AgentSettings,
    hooks: ParkHooks,
  ): Promise<PermissionOutcome> {
    if (live.abort.aborted) return Promise.resolve({ outcome: 'cancelled' });
    const verdict = matchRule(settings.approvalRules, request.toolCall, settings.pathJudge);
    if (verdict && verdict.action !== 'ask') {
      const option = verdict.action === 'allow' ? allowOption(request.options) : rejectOption(request.options);
      if (option) {
        recordQuestion(live, {
          kind: 'permission',
          about: request.toolCall.title,
          outcome: 'auto-decided',
          answer: option.optionId,
          by: `rule ${verdict.rule}`,
          rule: verdict.rule,
        })();
        return Promise.resolve({ outcome: 'selected', optionId: option.optionId });
      }
    }
    const always = request.options.find((o) => o.kind === 'allow_always');
    const identity = toolCallIdentity(
      request.toolCall,
      settings.volatileInputFields,
      workspaceOf(live, settings).workspace,
    );
    if (always && identity !== undefined && this.remembered.get(live.task.metadata.agent)?.has(identity)) {
      recordQuestion(live, {
        kind: 'permission',
        about: request.toolCall.title,
        outcome: 'auto-decided',
        answer: always.optionId,
        by: 'allow always',
        rule: 'allow_always',
      })();
      return Promise.resolve({ outcome: 'selected', optionId: always.optionId });
    }
    const now = Date.now();
    const pending: PermissionPending = {
      kind: 'permission',
      requestId: crypto.randomUUID(),
      toolCall: request.toolCall,
      options: request.options,
      ...workspaceOf(live, settings),
      ...(request.reattach ? { reattach: request.reattach } : {}),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + settings.approvalTimeoutMs).toISOString(),
    };
    return new Promise<PermissionOutcome>((resolve) => {
      const queue = this.queues.get(live.id) ?? [];
      this.queues.set(live.id, queue);
      hooks.onPark();
      const waiting: Waiting = {
        pending,
        resolve: (outcome) => {
          hooks.onResume();
          resolve(outcome);
        },
      };
      queue.push(waiting);
      request.withdrawn?.addEventListener('abort', () => this.withdraw(live, waiting, settings), { once: true });
      if (queue.length === 1) this.present(live, settings);
    });
  }

  has(taskId: string): boolean {
    return (this.queues.get(taskId)?.length ?? 0) > 0;
  }

  /**
   * Settles the question the task shows now with the option its answer resolved to (the caller resolved
   * it against that question's options, once, before anything changed).
   */
  answer(live: LiveTask, option: PermissionOption, answeredBy: string, settings: AgentSettings): void {
    const current = this.queues.get(live.id)?.[0];
    if (!current) throw pendingLost();
    live.patchMetadata({
      answeredBy,
      lastAnswer: {
        requestId: current.pending.requestId,
        optionId: option.optionId,
        by: answeredBy,
        at: new Date().toISOString(),
      },
    });
    if (option.kind === 'allow_always') this.remember(live, current.pending.toolCall, settings);
    const announce = recordQuestion(live, {
      kind: 'permission',
      about: current.pending.toolCall.title,
      outcome: 'answered',
      answer: option.optionId,
      by: answeredBy,
    });
    this.settleCurrent(live, { outcome: 'selected', optionId: option.optionId }, settings, announce);
  }

  /**
   * The agent's turn ended (or crashed) with questions still open: nobody can act on them any more. Each
   * is recorded `withdrawn`, the pending question is cleared and the task is back to `working` for the
   * outcome of the turn to settle it — never a question left that no answer could reach.
   */
  withdrawAll(live: LiveTask): void {
    const queue = this.queues.get(live.id) ?? [];
    const shown = queue[0];
    this.cancelAll(live.id);
    if (!shown || live.task.metadata.pending?.kind !== 'permission') return;
    const announce = recordQuestion(live, {
      kind: 'permission',
      about: shown.pending.toolCall.title,
      outcome: 'withdrawn',
      by: 'agent',
    });
    live.patchMetadata({ pending: undefined });
    live.setStatus('working');
    announce();
  }

  /** Cancels every question of the task (cancel, shutdown): each agent-side request gets `cancelled`. */
  cancelAll(taskId: string): void {
    const queue = this.queues.get(taskId) ?? [];
    this.queues.delete(taskId);
    this.clearTimers(taskId);
    for (const waiting of queue) waiting.resolve({ outcome: 'cancelled' });
  }

  private settleCurrent(
    live: LiveTask,
    outcome: PermissionOutcome,
    settings: AgentSettings,
    announce: () => void,
  ): void {
    const queue = this.queues.get(live.id) ?? [];
    const current = queue.shift();
    this.clearTimers(live.id);
    if (queue.length === 0) this.queues.delete(live.id);
    if (queue.length > 0) {
      announce();
      this.present(live, settings);
    } else {
      live.patchMetadata({ pending: undefined });
      live.setStatus('working');
      announce();
    }
    current?.resolve(outcome);
  }

  /** Shows the queue's head as the task's pending question, with its expiry and reminder. */
  private present(live: LiveTask, settings: AgentSettings): void {
    const head = this.queues.get(live.id)?.[0];
    if (!head) return;
    live.patchMetadata({ pending: head.pending });
    live.setStatus('input-required', describePending(head.pending, live.task.metadata.agent), {
      event: 'pending-created',
      pendingKind: 'permission',
    });
    const ttl = Date.parse(head.pending.expiresAt) - Date.now();
    const reminder = setTimeout(
      () => live.announce({ event: 'pending-reminder', pendingKind: 'permission' }),
      (ttl * 2) / 3,
    );
    const expiry = setTimeout(() => this.expire(live, settings), ttl);
    this.timers.set(live.id, [reminder, expiry]);
  }

  /** The agent took one request back: drop it; if it was the one shown, the next one (or `working`) follows. */
  private withdraw(live: LiveTask, waiting: Waiting, settings: AgentSettings): void {
    const queue = this.queues.get(live.id);
    const at = queue?.indexOf(waiting) ?? -1;
    if (!queue || at < 0) return;
    if (at > 0) {
      queue.splice(at, 1);
      waiting.resolve({ outcome: 'cancelled' });
      return;
    }
    const announce = recordQuestion(live, {
      kind: 'permission',
      about: waiting.pending.toolCall.title,
      outcome: 'withdrawn',
      by: 'agent',
    });
    this.settleCurrent(live, { outcome: 'cancelled' }, settings, announce);
  }

  /** Expiry rejects, never allows: the agent gets its reject option (or `cancelled` if it offered none). */
  private expire(live: LiveTask, settings: AgentSettings): void {
    const head = this.queues.get(live.id)?.[0];
    if (!head) return;
    const reject = rejectOption(head.pending.options);
    live.patchMetadata({ answeredBy: 'expiry' });
    const announce = recordQuestion(live, {
      kind: 'permission',
      about: head.pending.toolCall.title,
      outcome: 'expired',
      ...(reject ? { answer: reject.optionId } : {}),
      by: 'expiry',
    });
    this.settleCurrent(
      live,
      reject ? { outcome: 'selected', optionId: reject.optionId } : { outcome: 'cancelled' },
      settings,
      announce,
    );
  }

  /** Only a call that can be told apart from others is remembered (domain/tool-call-identity.ts). */
  private remember(live: LiveTask, toolCall: PermissionRequest['toolCall'], settings: AgentSettings): void {
    const agent = live.task.metadata.agent;
    const identity = toolCallIdentity(toolCall, settings.volatileInputFields, workspaceOf(live, settings).workspace);
    if (identity === undefined) return;
    const set = this.remembered.get(agent) ?? new RecentKeys(REMEMBERED_CALLS);
    set.add(identity);
    this.remembered.set(agent, set);
  }

  private clearTimers(taskId: string): void {
    for (const t of this.timers.get(taskId) ?? []) clearTimeout(t);
    this.timers.delete(taskId);
  }
}

/** Where the question's work happens: the task's own cwd, else the agent's configured one. */
export function workspaceOf(live: LiveTask, settings: AgentSettings): { workspace?: string } {
  const workspace = live.task.metadata.cwd ?? settings.workspace;
  return workspace ? { workspace } : {};
}

/** The agent-side request behind a permission question is gone (it died with the bridge's last run). */
export function pendingLost(): BridgeError {
  return new BridgeError(
    'pending-lost',
    "the agent's permission request was lost when the bridge restarted; re-send the task",
  );
}
