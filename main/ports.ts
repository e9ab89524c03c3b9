/**
 * The three ports of the bridge core. Adapters implement them; the runtime knows nothing else.
 */
import type { StreamEvent, TaskEvent } from './domain/events.js';
import type { PermissionOption, ToolCallSummary } from './domain/pending.js';
import type { Part, Task, TaskState } from './domain/task.js';

// ───────────────────────── AgentBackend ─────────────────────────

/** What an agent kind can and cannot do, declared on its card before anyone connects. */
export interface AgentTraits {
  /** The config `kind` (acp, subprocess_cli, ...). */
  backend: string;
  streaming: boolean;
  /** Can stop and ask (permission and/or the decision contract). */
  inputRequired: boolean;
  /** Can be stopped or asked in the middle of a run, not only at its end. */
  interruptible: boolean;
  /** Keeps a conversation per contextId, so a follow-up needs only the new text. */
  multiTurn: boolean;
  /** Plain words for the card: what this kind lacks ("no streaming; ..."), empty when nothing. */
  limits: string;
}

/** One unit of work handed to a backend: a first message, a follow-up, or an answered decision. */
export interface Turn {
  taskId: string;
  contextId: string;
  messageId: string;
  agent: string;
  /** The full text to send, already composed by the runtime (decision contract, answers folded in). */
  text: string;
  /** Non-text parts of the requester's message (files, data), in their original order. */
  attachments: Part[];
  delegationDepth: number;
  visitedAgents: string[];
  /** True when an earlier turn of this contextId ran on this agent (multiTurn backends reuse it). */
  followUp: boolean;
  /**
   * For a follow-up whose `text` counts on the agent remembering the conversation (an answered decision
   * sends only the choice): what to send instead when the backend finds it no longer does — its session,
   * process or history is gone (idle timeout, crash, eviction).
   */
  cold?: { text: string; attachments: Part[] };
  /**
   * A handle from an earlier turn (PermissionRequest.reattach): the backend continues that conversation
   * of the agent's (reloading it when its process is new), and uses `cold` only when it cannot.
   */
  reattach?: string;
  /**
   * A permission answered after a restart (its agent-side request died with the bridge): an agent told
   * the verdict often re-issues the very call and asks again. The backend answers that one request with
   * this verdict, once in this turn, when it is the same call (its kind, locations and whole raw input:
   * domain/tool-call-identity.ts), so the person is not asked twice, and reports `permissionCarriedOver`
   * in the receipt. Any other call, and the same call issued again in the turn, is asked.
   */
  carried?: CarriedVerdict;
  /**
   * The working directory the requester named for this task (absolute, as the requester wrote it);
   * backends that run somewhere use it instead of their configured cwd. Undefined: the configured one.
   */
  cwd?: string;
  /**
   * Aborted when the task is canceled or times out. The backend MUST then stop the real work (end
   * the process, send the agent its cancel) and resolve `run` promptly; the runtime decides the state.
   */
  signal: AbortSignal;
}

export interface CarriedVerdict {
  toolCall: ToolCallSummary;
  option: PermissionOption;
}

export interface PermissionRequest {
  toolCall: ToolCallSummary;
  options: PermissionOption[];
  /** Aborted when the agent takes the request back itself (ACP `$/cancel_request`): the question goes away. */
  withdrawn?: AbortSignal;
  /**
   * The backend's handle for picking this conversation up again after a bridge restart, when the agent
   * can (stored with the question; comes back as Turn.reattach when it is answered after a restart).
   */
  reattach?: string;
}

/** `selected` carries the chosen optionId; `cancelled` means the turn is going away. */
export type PermissionOutcome = { outcome: 'selected'; optionId: string } | { outcome: 'cancelled' };

/**
 * How a backend reports a running turn. Calls are cheap and synchronous except `askPermission`.
 */
export interface TurnReporter {
  /** Reply text as it arrives (any size; the runtime batches it into artifact chunks). */
  text(chunk: string): void;
  /**
   * Non-text reply content (a file with bytes, a file by URL, data), in order with the text. The runtime
   * checks it (valid base64, a passable link, the artifact cap in decoded bytes) and keeps a note instead
   * of what it cannot pass on.
   */
  content(part: Part): void;
  /**
   * Progress worth showing a watcher: a tool call, a plan, a thought. Never part of the result. Notes of
   * kind `thought` are streamed text: the runtime reads consecutive ones as one text (a token split
   * across them is still found).
   */
  progress(note: { kind: string; text: string; data?: unknown }): void;
  /** Facts the backend actually observed (pid, sessionId, ...), merged into `metadata.receipt`. */
  receipt(facts: Record<string, unknown>): void;
  /**
   * The backend itself dropped reply output past its own cap (`at` bytes kept): recorded in
   * `metadata.truncated` like the runtime's own cut, so a reader sees the reply is incomplete.
   */
  truncated?(cut: { at: number; droppedBytes: number }): void;
  /**
   * Parks the task in input-required and resolves when someone answers (or the task is canceled or
   * expires: `cancelled`). The agent's queue slot is released while waiting, and the turn timeout is
   * paused. Several requests of one turn are kept in order.
   */
  askPermission(request: PermissionRequest): Promise<PermissionOutcome>;
}

export type TurnOutcome =
  /**
   * `asks`: the reply ends with a question the agent itself asked (a remote peer waiting for a choice):
   * read it as a decision even when this bridge appended no decision contract.
   */
  | { kind: 'completed'; exitCode?: number; asks?: boolean }
  | { kind: 'failed'; reason: string; retryable: boolean; exitCode?: number; stderrTail?: string }
  | { kind: 'auth-required'; reason: string }
  /** The agent could not be reached at all (spawn error, handshake failure). */
  | { kind: 'undelivered'; reason: string; retryable: boolean };

/**
 * One configured agent. `run` is called by the agent's shard, one turn at a time per contextId; it may
 * be called again for another context while a turn waits for a permission answer. It never throws for
 * an agent's failure (that is a `failed` outcome); a throw is a bug in the backend.
 */
export interface AgentBackend {
  readonly traits: AgentTraits;
  run(turn: Turn, report: TurnReporter): Promise<TurnOutcome>;
  /** Stops every process this backend owns. Called once, at bridge shutdown. */
  close(): Promise<void>;
}

// ───────────────────────── TaskStore ─────────────────────────

export interface IdempotencyKey {
  /** The agent the message was sent to: message ids are unique per target. */
  scope: string;
  messageId: string;
  /** Fingerprint of the request payload, to tell a replay from a conflicting reuse. */
  payloadHash: string;
}

export interface StoredTask {
  task: Task;
  /** The seq of the last event stored for this task. */
  lastSeq: number;
}

export interface TaskQuery {
  contextId?: string;
  agent?: string;
  states?: TaskState[];
  /** Only tasks whose status changed after this instant (ISO-8601). */
  updatedAfter?: string;
  /**
   * Only tasks this agent created (`metadata.createdBy` is `agent:<name>`): what an agent's token may list
   * of the questions (`pending/list`), chosen before the page is cut, never after.
   */
  createdByAgent?: string;
  pageSize: number;
  pageToken?: string;
  includeArtifacts: boolean;
  /**
   * With artifacts, a page stops before the task that would take its tasks' JSON past this many UTF-8
   * bytes (always at least one task), and `nextPageToken` continues from there.
   */
  maxBytes?: number;
}

export interface TaskPage {
  tasks: Task[];
  nextPageToken: string;
  totalSize: number;
}

/**
 * Durable tasks and their event log. Every method is synchronous and atomic: a call either fully
 * happens or not at all. Tasks are returned as copies the caller may keep.
 */
export interface TaskStore {
  /**
   * Inserts a new task with its first events. With a key, the insert is idempotent: when the key's
   * messageId is already stored, nothing is written and the stored task comes back with `created:
   * false` and its payload hash, so the caller can tell a replay from a conflict.
   */
  create(
    task: Task,
    events: StreamEvent[],
    key?: IdempotencyKey,
  ): { stored: StoredTask; created: boolean; payloadHash?: string };
  /**
   * Saves a new snapshot of the task (when given) and appends events, in one transaction. Returns the
   * snapshot's JSON text exactly as the store keeps it (`JSON.stringify(task)` as of this call), so a
   * reply that sends the stored task can reuse it instead of serializing it again; undefined without a
   * task, and when the store does not keep it as one text (a long reply that refers to its events).
   */
  commit(taskId: string, events: TaskEvent[], task?: Task): string | undefined;
  get(taskId: string): StoredTask | undefined;
  /** Newest first by status timestamp; `pageToken` continues a previous page. */
  list(query: TaskQuery): TaskPage;
  /** Events of one task with seq > afterSeq, in order. */
  eventsAfter(taskId: string, afterSeq: number): TaskEvent[];
  /** Every task in one of these states (restart recovery, open questions), oldest first. */
  tasksInStates(states: TaskState[]): Task[];
  /**
   * Group commit, the one durability model. A store may let the `create`s and `commit`s of one
   * event-loop turn share one transaction: each call is still atomic (a throw undoes only that call), but
   * becomes durable when its group commits — at the end of the turn, at `flush`, or before any read of
   * this store, so a read never returns what a crash could still lose. A store whose writes are durable
   * when they return runs every callback at once and has nothing to flush.
   *
   * `afterCommit` runs `callback` once every write made before it is durable (at once when none is
   * pending), in registration order; with the error when they were lost instead. Nothing about a write
   * may reach anyone (a subscriber, a response) before its callback.
   */
  afterCommit(callback: (lost?: Error) => void): void;
  /** Makes every write so far durable now (its callbacks run before this returns); throws if lost. */
  flush(): void;
  /** Makes pending writes durable, then closes. */
  close(): void;
}

// ───────────────────────── EventSink ─────────────────────────

/**
 * Receives every task event after it is stored, in per-task order, with the task as it is after the
 * event. Must not throw and must not block: slow consumers buffer or drop on their own side.
 */
export interface EventSink {
  publish(event: TaskEvent, task: Task): void;
}
