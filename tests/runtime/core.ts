/**
 * The bridge core as wiring builds it — real Dispatcher, AgentRegistry, EventFeed and a real TaskStore —
 * with fake backends. Waits are driven by the feed's events, never by clocks.
 */
import type { TaskEvent } from '../../main/domain/events.js';
import type { Message, Part, Task, TaskState } from '../../main/domain/task.js';
import { isTerminal } from '../../main/domain/task.js';
import type { AgentBackend, TaskStore } from '../../main/ports.js';
import { CHUNK_IDLE_MS } from '../../main/runtime/artifact-stream.js';
import type { DelegationHints } from '../../main/runtime/delegation.js';
import { Dispatcher } from '../../main/runtime/dispatcher.js';
import { EventFeed } from '../../main/runtime/event-feed.js';
import { AgentRegistry, type AgentSettings } from '../../main/runtime/registry.js';
import { InMemoryTaskStore } from '../../main/stores/memory.js';

export function agentSettings(overrides: Partial<AgentSettings> = {}): AgentSettings {
  return {
    timeoutMs: 30_000,
    approvalTimeoutMs: 60_000,
    approvalRules: [],
    appendDecisionContract: true,
    maxQueue: 10,
    skills: [],
    tags: [],
    ...overrides,
  };
}

/**
 * Resolves after any artifact flush that text reported before the call has armed. The artifact stream flushes
 * a partial chunk CHUNK_IDLE_MS after the last text (main/runtime/artifact-stream.ts), and Node runs timers of
 * equal delay in the order they were set, so a timer set now fires after that one: an ordering, not a guess at
 * how long something takes. With the agent's own "I wrote it" signal, it proves late text was dropped.
 */
export function pastTheIdleFlush(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, CHUNK_IDLE_MS));
}

export interface SendOptions {
  messageId?: string;
  contextId?: string;
  taskId?: string;
  blocking?: boolean;
  delegation?: DelegationHints;
  /** Extra non-text parts after the text. */
  parts?: Part[];
}

export class Core {
  readonly store: TaskStore;
  readonly registry = new AgentRegistry();
  readonly feed = new EventFeed();
  readonly dispatcher: Dispatcher;
  /** Every task event the feed published, in order (its creation notices, seq 0, are in `created`). */
  readonly events: { event: TaskEvent; task: Task }[] = [];
  /** The tasks whose creation the feed announced, in order. */
  readonly created: string[] = [];
  private readonly stopFeed: () => void;
  private readonly backends: AgentBackend[] = [];

  constructor(opts: { store?: TaskStore; maxDelegationDepth?: number } = {}) {
    this.store = opts.store ?? new InMemoryTaskStore();
    this.dispatcher = new Dispatcher({
      store: this.store,
      registry: this.registry,
      feed: this.feed,
      maxDelegationDepth: opts.maxDelegationDepth ?? 3,
    });
    this.stopFeed = this.feed.listen((event, task) => {
      // A creation notice is the feed's own (dispatcher.ts announceCreated), not one of the task's stored events.
      if (event.seq === 0) this.created.push(event.taskId);
      else this.events.push({ event, task: structuredClone(task) });
    });
  }

  add<B extends AgentBackend>(name: string, backend: B, settings: Partial<AgentSettings> = {}): B {
    this.registry.add(name, backend, agentSettings(settings));
    this.backends.push(backend);
    return backend;
  }

  send(agent: string, text: string, opts: SendOptions = {}): Promise<Task> {
    const message: Message = {
      kind: 'message',
      messageId: opts.messageId ?? crypto.randomUUID(),
      role: 'user',
      parts: [{ kind: 'text', text }, ...(opts.parts ?? [])],
      ...(opts.contextId ? { contextId: opts.contextId } : {}),
      ...(opts.taskId ? { taskId: opts.taskId } : {}),
    };
    return this.dispatcher.send({
      agent,
      message,
      idempotent: opts.messageId !== undefined,
      blocking: opts.blocking ?? false,
      delegation: opts.delegation ?? {},
    });
  }

  /** Resolves with the task once it is in `state` (now or later). */
  untilState(taskId: string, state: TaskState): Promise<Task> {
    return this.untilEvent(
      taskId,
      (e) => e.kind === 'status-update' && e.status.state === state,
      () => (this.dispatcher.get(taskId).status.state === state ? this.dispatcher.get(taskId) : undefined),
    );
  }

  /** Resolves once the task is terminal. */
  untilTerminal(taskId: string): Promise<Task> {
    return this.untilEvent(
      taskId,
      (e) => e.kind === 'status-update' && isTerminal(e.status.state),
      () => {
        const task = this.dispatcher.get(taskId);
        return isTerminal(task.status.state) ? task : undefined;
      },
    );
  }

  /**
   * Resolves with the task after the first feed event of `taskId` that matches: `now` checks the present
   * instead of the past events when given.
   */
  untilEvent(taskId: string, match: (e: TaskEvent) => boolean, now?: () => Task | undefined): Promise<Task> {
    const already = now ? now() : this.events.find((e) => e.event.taskId === taskId && match(e.event))?.task;
    if (already) return Promise.resolve(already);
    return new Promise((resolve) => {
      const stop = this.feed.listen((event, task) => {
        if (event.taskId !== taskId || !match(event)) return;
        stop();
        resolve(structuredClone(task));
      });
    });
  }

  eventsOf(taskId: string): TaskEvent[] {
    return this.events.filter((e) => e.event.taskId === taskId).map((e) => e.event);
  }

  /**
   * Cancels whatever is still open, stops timers, closes backends and the store. With `crashed`, nothing
   * is canceled: the tasks stay as stored, as if the process had died (its successor recovers them).
   */
  async close(opts: { crashed?: boolean } = {}): Promise<void> {
    const open = opts.crashed
      ? []
      : this.store.tasksInStates(['submitted', 'working', 'input-required', 'auth-required']);
    for (const task of open) {
      try {
        await this.dispatcher.cancel(task.id);
      } catch {
        // Already settled between the read and the cancel.
      }
    }
    this.dispatcher.shutdown();
    this.stopFeed();
    for (const backend of this.backends) await backend.close();
    this.store.close();
  }
}
