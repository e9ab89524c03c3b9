import { decisionFollowUp, resolveDecisionAnswer, withDecisionContract } from '../domain/decision-contract.js';
import { BridgeError } from '../domain/errors.js';
import type { StreamEvent } from '../domain/events.js';
import { isTerminal, textOf, type Message, type Part, type Task } from '../domain/task.js';
import type { EventSink, TaskPage, TaskQuery, TaskStore } from '../ports.js';
import { resolveChain, loopGuardVerdict, type DelegationHints } from './delegation.js';
import type { EventFeed } from './event-feed.js';
import { LiveTask } from './live-task.js';
import { payloadHash } from './payload-hash.js';
import { PendingClock } from './pending-clock.js';
import { resolvePermissionAnswer } from './permission-answers.js';
import { PermissionDesk } from './permission-desk.js';
import { recordQuestion, type QuestionRecord } from './question-log.js';
import type { AgentEntry, AgentRegistry } from './registry.js';
import { newTask } from './new-task.js';
import { KeyedChain } from './shards.js';
import { runTurn } from './turn-runner.js';

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
}

export interface DispatcherOptions {
  store: TaskStore;
  registry: AgentRegistry;
  feed: EventFeed;
  /** Extra sinks (audit log, ...); the feed is always one. */
  sinks?: EventSink[];
  maxDelegationDepth: number;
}

export interface Subscription {
  unsubscribe(): void;
}

/** A turn as the dispatcher plans it, before the decision contract is appended. */
interface PlannedTurn {
  messageId: string;
  text: string;
  attachments: Part[];
  cold?: { text: string; attachments: Part[] };
}

// A replay of the old messageId returns this failed task; a new id runs the work again.
const RESTART_REASON = 'the bridge restarted while this task was running; re-send it under a new messageId';

/**
 * Orchestration: accepts sends, runs them through per-agent shards, settles answers and cancels, and
 * serves reads. It knows agents only through the AgentBackend port and tasks only through TaskStore.
 */
export class Dispatcher {
  private readonly live = new Map<string, LiveTask>();
  private readonly contexts = new KeyedChain();
  /** agent+context pairs that already ran a turn in this process: a multiTurn backend still has them. */
  private readonly warmContexts = new Set<string>();
  private readonly desk = new PermissionDesk();
  private readonly clock = new PendingClock();
  private readonly sinks: EventSink[];
  /** Tasks whose failure is being recorded after the store lost one of their changes. */
  private readonly recordingLoss = new Set<string>();

  constructor(private readonly opts: DispatcherOptions) {
    this.sinks = [opts.feed, ...(opts.sinks ?? [])];
  }

  get registry(): AgentRegistry {
    return this.opts.registry;
  }

  get feed(): EventFeed {
    return this.opts.feed;
  }

  /**
   * After a restart: tasks that were running have lost their process and fail (retryable); questions
   * stay readable and keep their expiry. A permission's agent-side request is gone (answering says so);
   * a decision can still be answered, as a new turn.
   */
  recover(): { failed: number; waiting: number } {
    const running = this.opts.store.tasksInStates(['submitted', 'working']);
    for (const task of running) {
      const live = this.revive(task);
      live.patchMetadata({ retryable: true });
      live.setStatus('failed', RESTART_REASON);
    }
    const waiting = this.opts.store.tasksInStates(['input-required']);
    for (const task of waiting) {
      const pending = task.metadata.pending;
      if (pending) this.clock.schedule(this.revive(task), pending);
    }
    return { failed: running.length, waiting: waiting.length };
  }

  async send(req: SendRequest): Promise<Task> {
    const entry = this.opts.registry.get(req.agent);
    if (req.message.taskId) return this.continueTask(req);

    const chain = resolveChain(req.delegation, {
      task: (id) => this.live.get(id)?.task ?? this.opts.store.get(id)?.task,
      inFlightOf: (agent) => [...this.live.values()].filter((l) => l.task.metadata.agent === agent).map((l) => l.task),
    });
    const rejection = loopGuardVerdict(entry.name, chain, this.opts.maxDelegationDepth);
    const unreserve = rejection ? undefined : this.reserveRoom(entry, req);

    const task = newTask(req, chain, rejection);
    const hash = payloadHash({
      agent: entry.name,
      parts: req.message.parts,
      contextId: req.message.contextId,
      cwd: req.cwd,
    });
    const key = req.idempotent ? { scope: entry.name, messageId: req.message.messageId, payloadHash: hash } : undefined;
    let outcome: ReturnType<TaskStore['create']>;
    try {
      outcome = this.opts.store.create(task, [], key);
    } catch (err) {
      unreserve?.(); // a failed insert must not hold a queue place forever
      throw err;
    }
    const { stored, created, payloadHash: storedHash } = outcome;
    if (!created) {
      unreserve?.();
      if (storedHash !== hash) {
        throw new BridgeError(
          'idempotency-conflict',
          `messageId "${req.message.messageId}" was already used for a different request (task ${stored.task.id}); use a new messageId for new work`,
          { taskId: stored.task.id },
        );
      }
      return this.replay(stored.task.id, req.blocking);
    }
    if (rejection) {
      await this.durable();
      return stored.task;
    }

    const live = this.adopt(stored.task, stored.lastSeq);
    // Its creation may be its only write in this group (queued behind its conversation): losing it must
    // fail the task too, or a blocking send waits forever on a task that is nowhere.
    this.opts.store.afterCommit?.((lost) => lost && live.lose(lost));
    this.schedule(
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
      return this.view(live);
    }
    // The task as created; the caller hears of it only once that is durable.
    const asCreated = this.snapshot(live.task);
    const storing = this.durable();
    if (storing) await storing;
    return asCreated;
  }

  get(taskId: string): Task {
    const live = this.live.get(taskId);
    if (live) return this.view(live);
    const stored = this.opts.store.get(taskId);
    if (!stored) throw notFound(taskId);
    return stored.task;
  }

  list(query: TaskQuery): TaskPage {
    const page = this.opts.store.list(query);
    page.tasks = page.tasks.map((t) => {
      const live = this.live.get(t.id);
      if (!live) return t;
      const snap = this.view(live);
      return query.includeArtifacts ? snap : { ...snap, artifacts: [] };
    });
    return page;
  }

  /** Open questions, oldest first. */
  pending(): Task[] {
    return this.opts.store
      .tasksInStates(['input-required', 'auth-required'])
      .map((t) => {
        const live = this.live.get(t.id);
        return live ? this.view(live) : t;
      })
      .sort((a, b) => pendingSince(a).localeCompare(pendingSince(b)));
  }

  /** How the latest questions ended (answered, auto-decided, expired), newest first. */
  questionHistory(limit: number): (QuestionRecord & { taskId: string; agent: string })[] {
    if (limit <= 0) return [];
    const recent = this.list({ pageSize: 100, includeArtifacts: false }).tasks;
    return recent
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

  async cancel(taskId: string): Promise<Task> {
    const current = this.get(taskId);
    if (isTerminal(current.status.state)) {
      throw new BridgeError(
        'not-cancelable',
        `task ${taskId} is already ${current.status.state} and cannot be canceled`,
      );
    }
    const live = this.live.get(taskId) ?? this.revive(current);
    live.patchMetadata({ pending: undefined });
    live.setStatus('canceled', 'canceled by request');
    live.abort.abort();
    this.desk.cancelAll(taskId);
    this.clock.clear(taskId);
    return this.view(live);
  }

  /**
   * One answer path for every kind of question; the first answer wins. `message` is the A2A message
   * that carried the answer (the standard route), kept in the task's history.
   */
  answer(taskId: string, answer: string, answeredBy: string, message?: Message): Task {
    const current = this.get(taskId);
    const pending = current.metadata.pending;
    if (current.status.state !== 'input-required' || !pending) {
      if (current.metadata.lastAnswer) {
        const last = current.metadata.lastAnswer as { by?: string; at?: string };
        throw new BridgeError(
          'already-answered',
          `task ${taskId} was already answered by ${last.by ?? 'someone'} at ${last.at ?? 'an earlier time'}`,
        );
      }
      throw new BridgeError(
        'unsupported-operation',
        `task ${taskId} is ${current.status.state}, not waiting for an answer`,
      );
    }
    const entry = this.opts.registry.get(current.metadata.agent);
    if (pending.kind === 'permission') {
      const live = this.live.get(taskId);
      if (!live || !this.desk.has(taskId)) {
        throw new BridgeError(
          'pending-lost',
          "the agent's permission request was lost when the bridge restarted; re-send the task",
        );
      }
      // A refused answer must leave no trace: check it before its message joins the history.
      resolvePermissionAnswer(pending.options, answer);
      if (message) live.task.history.push(message);
      this.desk.answer(live, answer, answeredBy, entry.settings);
      return this.view(live);
    }

    if (answer.trim() === '') {
      // Free text is allowed, but an empty choice would send the agent "The requester chose: " and nothing.
      throw new BridgeError(
        'invalid-params',
        `answer is empty; answer with an option's text, its number (1-${pending.options.length}), or free text`,
      );
    }
    const { choice, free } = resolveDecisionAnswer(pending.options, answer);
    // Before anything changes: a full queue refuses the answer (retry later) instead of failing the task.
    const unreserve = entry.shard.reserve();
    const live = this.live.get(taskId) ?? this.revive(current);
    if (message) live.task.history.push(message);
    this.clock.clear(taskId);
    live.patchMetadata({
      pending: undefined,
      answeredBy,
      lastAnswer: { choice, freeText: free, by: answeredBy, at: new Date().toISOString() },
    });
    const announce = recordQuestion(live, {
      kind: 'decision',
      about: pending.question,
      outcome: 'answered',
      answer: choice,
      by: answeredBy,
    });
    live.setStatus('working');
    announce();
    const warm = entry.backend.traits.multiTurn && this.warmContexts.has(contextKey(entry.name, live.task.contextId));
    const decision = { question: pending.question, choice };
    const first = live.task.history[0]?.parts ?? [];
    // The whole request again with the choice: what an agent that no longer holds the conversation needs.
    const cold = { text: decisionFollowUp(decision, textOf(first)), attachments: nonTextParts(first) };
    this.schedule(
      live,
      entry,
      warm
        ? { messageId: crypto.randomUUID(), text: decisionFollowUp(decision), attachments: [], cold }
        : { messageId: crypto.randomUUID(), ...cold },
      unreserve,
    );
    return this.view(live);
  }

  /** The seq of the task's latest event (0 for none): a stream that starts now resumes after it. */
  lastSeq(taskId: string): number {
    return this.live.get(taskId)?.lastSeq ?? this.opts.store.get(taskId)?.lastSeq ?? 0;
  }

  /**
   * Every event of the task from now on, after a first event that brings the caller up to date: the
   * current Task, or (with `afterSeq`) the stored events it missed. `onEnd` fires when no more events
   * will come on this subscription (terminal or parked state).
   */
  subscribe(taskId: string, afterSeq: number | undefined, listener: (e: StreamEvent) => void): Subscription {
    // Everything written is durable and told before this listener joins: it hears each event once.
    this.opts.store.flush?.();
    const live = this.live.get(taskId);
    const task = live?.task ?? this.opts.store.get(taskId)?.task;
    if (!task) throw notFound(taskId);
    const lastSeq = live?.lastSeq ?? this.opts.store.get(taskId)?.lastSeq ?? 0;
    if (afterSeq === undefined || afterSeq > lastSeq) {
      listener({ kind: 'task', seq: lastSeq, task: this.snapshot(task) });
    } else {
      for (const event of this.opts.store.eventsAfter(taskId, afterSeq)) listener(event);
    }
    const unsubscribe = live ? live.listen(listener) : () => undefined;
    return { unsubscribe };
  }

  /**
   * Freezes every live task as stored (the next start's recovery settles them), then withdraws the
   * agent-side questions and stops timers; backends are closed by the server.
   */
  shutdown(): void {
    for (const live of this.live.values()) live.freeze();
    for (const id of this.live.keys()) this.desk.cancelAll(id);
    this.clock.clearAll();
  }

  private continueTask(req: SendRequest): Promise<Task> | Task {
    const taskId = req.message.taskId!;
    const current = this.get(taskId);
    if (req.message.contextId && req.message.contextId !== current.contextId) {
      throw new BridgeError(
        'invalid-params',
        `contextId "${req.message.contextId}" does not match task ${taskId}'s context "${current.contextId}"`,
      );
    }
    if (current.metadata.agent !== req.agent) {
      throw new BridgeError(
        'invalid-params',
        `task ${taskId} belongs to agent "${current.metadata.agent}", not "${req.agent}"`,
      );
    }
    if (isTerminal(current.status.state)) {
      throw new BridgeError(
        'unsupported-operation',
        `task ${taskId} is ${current.status.state}; it takes no more messages — send a new task with contextId "${current.contextId}" to continue the conversation`,
      );
    }
    if (current.status.state !== 'input-required') {
      throw new BridgeError(
        'unsupported-operation',
        `task ${taskId} is ${current.status.state}, not waiting for input; wait for it or cancel it`,
      );
    }
    const answered = this.answer(taskId, textOf(req.message.parts), 'caller', {
      ...req.message,
      contextId: current.contextId,
    });
    const live = this.live.get(taskId);
    if (!req.blocking || !live) return answered;
    return live.settled().then(() => this.view(live));
  }

  private async replay(taskId: string, blocking: boolean): Promise<Task> {
    const live = this.live.get(taskId);
    if (live && blocking) await live.settled();
    return this.get(taskId);
  }

  /**
   * A queue place for a new send. When the queue is full, a replay of a task still queued or running
   * passes without one (the store then tells replay from conflict): a client retrying after a timeout
   * must get its task back, not QueueFull.
   */
  private reserveRoom(entry: AgentEntry, req: SendRequest): (() => void) | undefined {
    try {
      return entry.shard.reserve();
    } catch (err) {
      const messageId = req.message.messageId;
      const replay = [...this.live.values()].some(
        (l) => l.task.metadata.agent === entry.name && l.task.history[0]?.messageId === messageId,
      );
      if (req.idempotent && replay) return undefined;
      throw err;
    }
  }

  private schedule(live: LiveTask, entry: AgentEntry, turn: PlannedTurn, unreserve?: () => void): void {
    // The agent starts only once what led to this turn is durable: killed in between, the bridge would
    // leave work done that no stored task accounts for, and a replayed messageId would run it again.
    const { store } = this.opts;
    if (store.afterCommit) {
      store.afterCommit((lost) => (lost ? unreserve?.() : this.start(live, entry, turn, unreserve)));
    } else {
      this.start(live, entry, turn, unreserve);
    }
  }

  private start(live: LiveTask, entry: AgentEntry, turn: PlannedTurn, unreserve?: () => void): void {
    const key = contextKey(entry.name, live.task.contextId);
    const contract = entry.settings.appendDecisionContract;
    void this.contexts.run(key, () => {
      const followUp = this.warmContexts.has(key);
      this.warmContexts.add(key);
      return new Promise<void>((done) => {
        try {
          unreserve?.();
          entry.shard.enqueue((release) =>
            runTurn(
              {
                live,
                agent: entry,
                messageId: turn.messageId,
                text: contract ? withDecisionContract(turn.text) : turn.text,
                attachments: turn.attachments,
                ...(turn.cold
                  ? {
                      cold: {
                        text: contract ? withDecisionContract(turn.cold.text) : turn.cold.text,
                        attachments: turn.cold.attachments,
                      },
                    }
                  : {}),
                followUp,
                contractApplied: contract,
                release,
              },
              this.desk,
              (parked) => this.clock.schedule(parked, parked.task.metadata.pending!),
            ).finally(done),
          );
        } catch (err) {
          live.patchMetadata({ retryable: true });
          live.setStatus('failed', (err as Error).message);
          done();
        }
      });
    });
  }

  private adopt(task: Task, lastSeq: number): LiveTask {
    const live = new LiveTask({ task, lastSeq }, this.opts.store, this.sinks, (err) => this.afterLoss(task.id, err));
    this.live.set(task.id, live);
    live.listen((event) => {
      if (event.kind === 'status-update' && isTerminal(event.status.state)) this.live.delete(task.id);
    });
    return live;
  }

  /**
   * The store lost a change of this task (the group's commit failed; its agent turn is already stopped).
   * What is stored is its last durable state, which may say "working" for good: record it as failed
   * (retryable) in a later group. When that is lost too (the disk is still full), the next start's
   * recovery settles it; one try, so a full disk never turns into a loop.
   */
  private afterLoss(taskId: string, err: Error): void {
    this.live.delete(taskId);
    this.desk.cancelAll(taskId);
    this.clock.clear(taskId);
    if (this.recordingLoss.delete(taskId)) return;
    const cause = err.cause instanceof Error ? err.cause : err;
    try {
      const stored = this.opts.store.get(taskId);
      if (!stored || isTerminal(stored.task.status.state)) return;
      this.recordingLoss.add(taskId);
      const live = this.adopt(stored.task, stored.lastSeq);
      live.patchMetadata({ pending: undefined, retryable: true });
      live.setStatus(
        'failed',
        `the bridge could not store this task's progress (${cause.message}); re-send it under a new messageId`,
      );
      const { store } = this.opts;
      if (store.afterCommit) store.afterCommit((lost) => lost || this.recordingLoss.delete(taskId));
      else this.recordingLoss.delete(taskId);
    } catch {
      // The store cannot even be read now: the next start's recovery settles the task.
      this.recordingLoss.delete(taskId);
    }
  }

  /** A stored, unfinished task brought back under management (after a restart). */
  private revive(task: Task): LiveTask {
    const existing = this.live.get(task.id);
    if (existing) return existing;
    const stored = this.opts.store.get(task.id);
    return this.adopt(stored?.task ?? task, stored?.lastSeq ?? 0);
  }

  /**
   * A live task as a caller may see it: its pending writes are made durable first (group commit), so
   * no answer shows a state a crash could still lose.
   */
  private view(live: LiveTask): Task {
    if (live.unstored) this.opts.store.flush?.();
    return this.snapshot(live.task);
  }

  /**
   * Once every write so far is durable; rejects when the store lost them. Nothing to wait for (no
   * promise, no extra tick) when they already are.
   */
  private durable(): Promise<void> | undefined {
    const { store } = this.opts;
    if (!store.afterCommit) return undefined;
    let done: { lost?: Error } | undefined;
    let settle: ((lost?: Error) => void) | undefined;
    store.afterCommit((lost) => (settle ? settle(lost) : (done = { ...(lost ? { lost } : {}) })));
    if (done) return done.lost ? Promise.reject(done.lost) : undefined;
    return new Promise((resolve, reject) => (settle = (lost) => (lost ? reject(lost) : resolve())));
  }

  /** A read-only view: the caller may trim or serialize it but never mutates the live task. */
  private snapshot(task: Task): Task {
    return {
      ...task,
      history: [...task.history],
      artifacts: task.artifacts.map((a) => ({ ...a, parts: a.parts.map((p) => ({ ...p })) })),
      metadata: { ...task.metadata },
    };
  }
}

function contextKey(agent: string, contextId: string): string {
  return `${agent}\u0000${contextId}`;
}

function nonTextParts(parts: readonly Part[]): Part[] {
  return parts.filter((p) => p.kind !== 'text');
}

function notFound(taskId: string): BridgeError {
  return new BridgeError(
    'task-not-found',
    `no task with id "${taskId}"; list recent tasks with tasks/list or \`contactor tasks\``,
  );
}

function pendingSince(task: Task): string {
  return task.metadata.pending?.createdAt ?? task.status.timestamp;
}
