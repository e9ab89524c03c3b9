import { identityLabel, PERSON_BY_TOKEN, type Identity } from '../domain/authority.js';
import { BridgeError } from '../domain/errors.js';
import { redact } from '../domain/redaction.js';
import type { StreamEvent } from '../domain/events.js';
import { isTerminal, textOf, type Message, type Task } from '../domain/task.js';
import type { EventSink, TaskPage, TaskQuery, TaskStore } from '../ports.js';
import { checkContinuation } from './continuation.js';
import { resolveChain, loopGuardVerdict, type DelegationHints } from './delegation.js';
import type { EventFeed } from './event-feed.js';
import { durable, LiveTasks, snapshot, type SendAnswer } from './live-tasks.js';
import { createdNotice } from './live-task.js';
import { PendingClock } from './pending-clock.js';
import { PermissionDesk } from './permission-desk.js';
import { answerQuestion, nonTextParts } from './question-answers.js';
import type { AnsweredQuestion } from './question-log.js';
import type { AgentRegistry } from './registry.js';
import { recoverAfterRestart } from './restart-recovery.js';
import { storeNewTask } from './send-intake.js';
import { TaskReads, type Subscription } from './task-reads.js';
import { ownRealClock, type Timers } from './timers.js';
import { TurnScheduler } from './turn-scheduler.js';

export type { SendAnswer } from './live-tasks.js';
export type { Subscription } from './task-reads.js';

export interface SendRequest {
  agent: string;
  /** The requester's message (role user). Its `taskId`, when set, continues that task. */
  message: Message;
  /** False when the bridge made up the messageId: no messageId, no idempotency. */
  idempotent: boolean;
  /** Wait until the task is terminal or parked on a question. */
  blocking: boolean;
  delegation: DelegationHints;
  /** The working directory for the agent, when the requester names one (absolute). */
  cwd?: string;
  /**
   * Who sends it, as the credential proves it (the transport always says; in-process callers are the
   * person). A new task records it as its creator; a continuation answers as it.
   */
  by?: Identity;
}

export interface DispatcherOptions {
  store: TaskStore;
  registry: AgentRegistry;
  feed: EventFeed;
  /** Extra sinks (audit log, ...); the feed is always one. */
  sinks?: EventSink[];
  maxDelegationDepth: number;
  /**
   * The bridge's own tokens: removed from everything a task holds, agents' replies included; with the
   * credential patterns, from every status text the bridge writes (domain/redaction.ts).
   */
  secrets?: () => readonly string[];
  /** A `tasks/list` page with artifacts stops before this many bytes of tasks (TaskQuery.maxBytes). */
  maxPageBytes?: number;
  /** What question expiry and turn timeouts run on (default: the real clock). */
  timers?: Timers;
}

/**
 * Orchestration: accepts sends, runs them through per-agent shards, settles answers and cancels, and
 * serves reads. It knows agents only through the AgentBackend port and tasks only through TaskStore.
 */
export class Dispatcher {
  private readonly desk = new PermissionDesk();
  private readonly clock: PendingClock;
  private readonly live: LiveTasks;
  private readonly turns: TurnScheduler;
  private readonly reads: TaskReads;

  constructor(private readonly opts: DispatcherOptions) {
    const timers = opts.timers ?? ownRealClock();
    this.clock = new PendingClock(timers);
    this.live = new LiveTasks({
      store: opts.store,
      sinks: [opts.feed, ...(opts.sinks ?? [])],
      onLost: (taskId) => {
        this.desk.cancelAll(taskId);
        this.clock.clear(taskId);
      },
      redact: (text) => redact(text, opts.secrets?.() ?? []),
      ...(opts.secrets ? { secrets: opts.secrets } : {}),
    });
    this.reads = new TaskReads(opts.store, this.live, opts.maxPageBytes);
    this.turns = new TurnScheduler({
      store: opts.store,
      desk: this.desk,
      onDecision: (parked) => this.clock.schedule(parked, parked.task.metadata.pending!),
      ...(opts.secrets ? { secrets: opts.secrets } : {}),
      timers,
      redact: (text) => redact(text, opts.secrets?.() ?? []),
    });
  }

  get registry(): AgentRegistry {
    return this.opts.registry;
  }

  get feed(): EventFeed {
    return this.opts.feed;
  }

  /** After a restart (restart-recovery.ts): what was running fails as restarted; questions stay answerable. */
  recover(): { failed: number; waiting: number } {
    return recoverAfterRestart({ store: this.opts.store, live: this.live, clock: this.clock });
  }

  async send(request: SendRequest): Promise<Task> {
    return (await this.answerSend(request)).task;
  }

  /** `send`, answered with the stored snapshot's text beside the task when there is one (a finished task). */
  async answerSend(request: SendRequest): Promise<SendAnswer> {
    const entry = this.opts.registry.get(request.agent);
    // Refused before anything is stored: a cwd outside the agent's roots never becomes a task.
    const { confineCwd } = entry.settings;
    const req = request.cwd !== undefined && confineCwd ? { ...request, cwd: confineCwd(request.cwd) } : request;
    if (req.message.taskId) return { task: await this.continueTask(req) };

    const chain = resolveChain(req.delegation, req.by, {
      task: (id) => this.live.get(id)?.task ?? this.opts.store.get(id)?.task,
      inFlightOf: (agent) =>
        this.live
          .all()
          .filter((l) => l.task.metadata.agent === agent)
          .map((l) => l.task),
    });
    const rejection = loopGuardVerdict(entry.name, chain, this.opts.maxDelegationDepth);
    const intake = storeNewTask({ store: this.opts.store, live: this.live }, entry, req, { chain, rejection });
    if (intake.kind === 'replay') return { task: await this.replay(intake.taskId, req.blocking) };
    const { stored, unreserve } = intake;
    this.announceCreated(stored.task);
    if (rejection) {
      await durable(this.opts.store);
      return { task: stored.task };
    }

    const live = this.live.adopt(stored.task, stored.lastSeq);
    // Its creation may be its only write in this group (queued behind its conversation): losing it must
    // fail the task too, or a blocking send waits forever on a task that is nowhere.
    this.opts.store.afterCommit((lost) => lost && live.lose(lost));
    this.turns.schedule(
      live,
      entry,
      {
        messageId: req.message.messageId,
        text: textOf(req.message.parts),
        attachments: nonTextParts(req.message.parts),
      },
      unreserve,
    );
    if (req.blocking) {
      await live.settled();
      return this.live.answer(live);
    }
    // The task as created; the caller hears of it only once that is durable.
    const asCreated = snapshot(live.task);
    const storing = durable(this.opts.store);
    if (storing) await storing;
    return { task: asCreated };
  }

  get(taskId: string): Task {
    return this.reads.get(taskId);
  }

  list(query: TaskQuery): TaskPage {
    return this.reads.list(query);
  }

  /** Open questions, oldest first. */
  pending(): Task[] {
    return this.reads.pending();
  }

  /** See TaskReads.questionHistory. */
  questionHistory(limit: number, createdByAgent?: string): AnsweredQuestion[] {
    return this.reads.questionHistory(limit, createdByAgent);
  }

  /** `by`: who asked, as their credential proves it (the transport checked they may); named in the status. */
  async cancel(taskId: string, by?: Identity): Promise<Task> {
    const current = this.get(taskId);
    if (isTerminal(current.status.state)) {
      throw new BridgeError(
        'not-cancelable',
        `task ${taskId} is already ${current.status.state} and cannot be canceled`,
      );
    }
    const live = this.live.get(taskId) ?? this.live.revive(current);
    live.patchMetadata({ pending: undefined });
    live.setStatus('canceled', by ? `canceled by ${identityLabel(by)}` : 'canceled by request');
    live.abort.abort();
    this.desk.cancelAll(taskId);
    this.clock.clear(taskId);
    return this.live.view(live);
  }

  /**
   * One answer path for every kind of question (question-answers.ts); the first answer wins. `by` is
   * who answers as their credential proves it, checked against the authority table; `message` is the
   * A2A message that carried the answer (the standard route), kept in the task's history.
   */
  answer(taskId: string, answer: string, by: Identity, message?: Message, opts: { freeText?: boolean } = {}): Task {
    const deps = { live: this.live, desk: this.desk, clock: this.clock, turns: this.turns, registry: this.registry };
    return answerQuestion(deps, this.get(taskId), { answer, by, message, freeText: opts.freeText });
  }

  /** The seq of the task's latest event (0 for none): a stream that starts now resumes after it. */
  lastSeq(taskId: string): number {
    return this.reads.lastSeq(taskId);
  }

  /** See TaskReads.subscribe. */
  subscribe(taskId: string, afterSeq: number | undefined, listener: (e: StreamEvent) => void): Subscription {
    return this.reads.subscribe(taskId, afterSeq, listener);
  }

  /**
   * Freezes every live task as stored (the next start's recovery settles them), then withdraws the
   * agent-side questions and stops timers; backends are closed by the server.
   */
  shutdown(): void {
    for (const live of this.live.all()) {
      live.freeze();
      this.desk.cancelAll(live.id);
    }
    this.clock.clearAll();
    this.live.close();
  }

  /**
   * Tells the feed (only) that a task exists, once that is durable: a task waiting in its agent's queue
   * has no event of its own until it starts, and the activity view lists it from the first moment
   * (docs/contract.md#the-event-feed). Seq 0: it is not one of the task's stored events.
   */
  private announceCreated(task: Task): void {
    // No copy: nothing changes a new task before its creation commits but a cancel in the same group,
    // which replaces its status (told by its own event); the notice keeps the status it was created with.
    const status = task.status;
    this.opts.store.afterCommit((lost) => {
      if (lost) return;
      const created = task.status === status ? task : { ...task, status };
      this.opts.feed.publish(createdNotice(created), created);
    });
  }

  /** The standard A2A route for an answer: a message carrying the task's taskId, from `req.by`. */
  private continueTask(req: SendRequest): Promise<Task> | Task {
    const taskId = req.message.taskId!;
    const current = this.get(taskId);
    checkContinuation(current, { agent: req.agent, contextId: req.message.contextId });
    const answered = this.answer(taskId, textOf(req.message.parts), req.by ?? PERSON_BY_TOKEN, {
      ...req.message,
      contextId: current.contextId,
    });
    const live = this.live.get(taskId);
    if (!req.blocking || !live) return answered;
    return live.settled().then(() => this.live.view(live));
  }

  private async replay(taskId: string, blocking: boolean): Promise<Task> {
    const live = this.live.get(taskId);
    if (live && blocking) await live.settled();
    return this.get(taskId);
  }
}
