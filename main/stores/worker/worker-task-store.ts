/**
 * The durable TaskStore with its writes committed on a worker thread (writer-thread.ts), so the event
 * loop parses, routes and answers while a group's SQL and WAL append run on the other core. The same
 * file, schema and durability promise as the in-loop store (sqlite.ts): a write is durable when its group
 * commits, and `afterCommit` callbacks — the only way anyone may hear of it — run only after the writer
 * thread replied that the COMMIT returned (the group is then in the WAL and survives a kill -9).
 *
 * The calls stay synchronous. What a write must know at once is answered on the main thread: from what
 * this store wrote and is still committing (`known`, `pendingKeys`), else from the file through a second
 * connection (store-reads.ts). A read first waits for every write made before it to commit (`flush`), so
 * it sees the caller's own writes and never returns what a crash could still lose.
 *
 * A lost group (disk full) is reported to its callbacks and `flush`; every group sent after it, built on
 * it, is lost too (the writer refuses them), and then the store starts over from what the file holds.
 */
import type { StreamEvent, TaskEvent } from '../../domain/events.js';
import { creatorAgent } from '../../domain/authority.js';
import { isTerminal, type Task, type TaskState } from '../../domain/task.js';
import type { IdempotencyKey, StoredTask, TaskPage, TaskQuery, TaskStore } from '../../ports.js';
import { PRUNABLE_STATES, type PrunableStore, type PruneOptions } from '../history-pruning.js';
import { taskColumns } from '../pending-writes.js';
import { checkedLastSeq, checkSnapshotId, isTaskEvent, taskNotFound } from '../task-query.js';
import { WalCheckpointer, type WalCheckpointerOptions } from '../wal-checkpointer.js';
import { HeldGroup, keyOf } from './held-group.js';
import { StoreReads } from './store-reads.js';
import { WriterThread, type WriterReply } from './writer-thread.js';

export interface WorkerTaskStoreOptions {
  /** Path of the database file; created when missing (its folder must exist). */
  file: string;
  checkpoints?: WalCheckpointerOptions;
}

type Callback = (lost?: Error) => void;

interface KnownTask {
  lastSeq: number;
  /** The group of the task's latest write. */
  gen: number;
  finished: boolean;
}

export class WorkerTaskStore implements TaskStore, PrunableStore {
  private readonly reads: StoreReads;
  private readonly writer: WriterThread;
  private readonly checkpointer: WalCheckpointer;
  /** This turn's writes, sent when the turn ends. */
  private held: HeldGroup | undefined;
  private timer: NodeJS.Immediate | undefined;
  /** Groups sent and not yet answered, oldest first (Map keeps insertion order). */
  private readonly inFlight = new Map<number, HeldGroup>();
  private nextGen = 1;
  /** Every group up to this one is answered. */
  private answeredGen = 0;
  /** Lost groups heard of (the writer counts the same: writer-thread.ts). */
  private losses = 0;
  private lastLost: { gen: number; err: Error } | undefined;
  /** Set while a loss is being cleaned up: the lost groups' callbacks wait in `lostCallbacks`. */
  private recovering = false;
  private lostCallbacks: { callback: Callback; err: Error }[] = [];
  /**
   * The last seq of every task this store wrote that is unfinished, or finished in a group not yet
   * answered: the file may not show those writes yet, so a task here is never looked up there.
   */
  private readonly known = new Map<string, KnownTask>();
  /** Idempotency keys inserted by groups not yet answered → the group. */
  private readonly pendingKeys = new Map<string, number>();
  private failure: Error | undefined;
  private pruned: { deleted?: number; failed?: string } | undefined;
  private writerClosed = false;
  private closed = false;

  constructor(options: WorkerTaskStoreOptions) {
    // The main thread's connection opens the file first: its checks and migrations run before the writer's.
    this.reads = new StoreReads(options.file);
    this.checkpointer = new WalCheckpointer(options.file, options.checkpoints);
    try {
      this.writer = new WriterThread(
        options.file,
        (reply) => this.onReply(reply),
        (err) => this.onWriterExit(err),
      );
    } catch (err) {
      this.reads.close();
      throw err;
    }
  }

  create(
    task: Task,
    events: StreamEvent[],
    key?: IdempotencyKey,
  ): { stored: StoredTask; created: boolean; payloadHash?: string } {
    this.usable();
    const columns = taskColumns(task);
    const lastSeq = checkedLastSeq(task.id, 0, events);
    const createdAt = task.metadata.createdAt;
    if (typeof createdAt !== 'string')
      throw new Error(`Task ${task.id} has no metadata.createdAt; it cannot be stored.`);
    if (key) {
      const known = this.knownKey(key);
      if (known)
        return {
          stored: known.stored,
          created: false,
          ...(known.payloadHash ? { payloadHash: known.payloadHash } : {}),
        };
    }
    if (this.known.has(task.id) || this.reads.has(task.id)) {
      throw new Error(`Task ${task.id} already exists.`);
    }
    const group = this.group();
    group.create(
      columns,
      { createdAt, createdByAgent: creatorAgent(task.metadata.createdBy) ?? null, key },
      lastSeq,
      serialized(events),
    );
    this.remember(task.id, lastSeq, group, isTerminal(columns.state as TaskState));
    if (key) this.pendingKeys.set(keyOf(key), group.gen);
    return { stored: { task, lastSeq }, created: true, ...(key ? { payloadHash: key.payloadHash } : {}) };
  }

  commit(taskId: string, events: TaskEvent[], task?: Task): string | undefined {
    checkSnapshotId(taskId, task);
    this.usable();
    const entry = this.known.get(taskId);
    const stored = entry?.lastSeq ?? this.reads.lastSeq(taskId);
    if (stored === undefined) throw taskNotFound(taskId);
    const lastSeq = checkedLastSeq(taskId, stored, events);
    // Serialized now: the caller keeps changing its task after this returns.
    const columns = task ? taskColumns(task) : undefined;
    const group = this.group();
    group.commit(taskId, lastSeq, columns, serialized(events));
    const finished = columns ? isTerminal(columns.state as TaskState) : (entry?.finished ?? false);
    this.remember(taskId, lastSeq, group, finished);
    return columns?.task_json;
  }

  afterCommit(callback: Callback): void {
    const last = this.held ?? lastOf(this.inFlight);
    if (last) last.callbacks.push(callback);
    else callback();
  }

  flush(): void {
    if (this.failure) throw this.failure;
    const from = this.answeredGen;
    this.send();
    this.writer.waitUntil(
      () => this.inFlight.size === 0,
      (reply) => this.onReply(reply),
    );
    if (this.lastLost && this.lastLost.gen > from) throw this.lastLost.err;
  }

  get(taskId: string): StoredTask | undefined {
    this.flushQuietly();
    return this.reads.get(taskId);
  }

  list(query: TaskQuery): TaskPage {
    this.flushQuietly();
    return this.reads.list(query);
  }

  eventsAfter(taskId: string, afterSeq: number): TaskEvent[] {
    this.flushQuietly();
    return this.reads.eventsAfter(taskId, afterSeq);
  }

  tasksInStates(states: TaskState[]): Task[] {
    this.flushQuietly();
    return this.reads.tasksInStates(states);
  }

  prune(opts: PruneOptions): number {
    this.flushQuietly();
    this.usable();
    this.pruned = undefined;
    this.writer.post({
      kind: 'prune',
      states: JSON.stringify(PRUNABLE_STATES),
      olderThan: opts.olderThan,
      maxTasks: opts.maxTasks,
    });
    this.writer.waitUntil(
      () => this.pruned !== undefined,
      (reply) => this.onReply(reply),
    );
    const { deleted, failed } = this.pruned!;
    if (failed !== undefined) throw new Error(`Could not prune the task history: ${failed}`);
    return deleted ?? 0;
  }

  close(): void {
    if (this.closed) return;
    try {
      this.flushQuietly();
    } finally {
      this.closed = true;
      // The other connections close first: the writer's close, the last, removes the WAL.
      this.checkpointer.close();
      this.reads.close();
      if (!this.failure) {
        this.writer.post({ kind: 'close' });
        this.writer.waitUntil(
          () => this.writerClosed,
          (reply) => this.onReply(reply),
        );
      }
      this.writer.stop();
    }
  }

  /** Before a read: a lost group was already reported to its writers, and the read shows what is left. */
  private flushQuietly(): void {
    try {
      this.flush();
    } catch {
      // Reported through afterCommit.
    }
  }

  /** An idempotency key's task as it is now (every write to it committed first), or undefined when unknown. */
  private knownKey(key: IdempotencyKey): { stored: StoredTask; payloadHash?: string } | undefined {
    // The key's insert, or a change to its task, may still be on its way: let it land (or be lost) first.
    // Only a replayed messageId gets here with writes in flight, and it waits no longer than one commit.
    if (this.pendingKeys.has(keyOf(key))) this.flushQuietly();
    const found = this.reads.byIdempotencyKey(key.scope, key.messageId);
    if (!found) return undefined;
    const id = found.stored.task.id;
    if (this.held?.has(id) || (this.known.get(id)?.gen ?? 0) > this.answeredGen) {
      this.flushQuietly();
      return this.reads.byIdempotencyKey(key.scope, key.messageId);
    }
    return found;
  }

  private usable(): void {
    if (this.closed) throw new Error('The task store is closed.');
    if (this.failure) throw this.failure;
  }

  private group(): HeldGroup {
    if (this.held) return this.held;
    const group = new HeldGroup(this.nextGen, this.losses);
    this.nextGen += 1;
    this.held = group;
    this.timer = setImmediate(() => this.send());
    return group;
  }

  private remember(taskId: string, lastSeq: number, group: HeldGroup, finished: boolean): void {
    this.known.set(taskId, { lastSeq, gen: group.gen, finished });
    if (finished) group.finished.push(taskId);
  }

  /** Hands this turn's group to the writer thread. */
  private send(): void {
    const group = this.held;
    if (!group) return;
    this.held = undefined;
    clearImmediate(this.timer);
    this.inFlight.set(group.gen, group);
    this.writer.hold(true);
    this.writer.post(group.message());
  }

  private onReply(reply: WriterReply): void {
    if (reply.kind === 'pruned') this.pruned = reply;
    else if (reply.kind === 'closed') this.writerClosed = true;
    else if (reply.lost === undefined) this.committed(reply.gens);
    else this.lost(reply.gens, reply.lost);
  }

  private committed(gens: number[]): void {
    let failure: { err: unknown } | undefined;
    for (const gen of gens) {
      const group = this.take(gen);
      for (const id of group.finished) if (this.known.get(id)?.gen === gen) this.known.delete(id);
      for (const key of group.keys) if (this.pendingKeys.get(key) === gen) this.pendingKeys.delete(key);
      try {
        this.checkpointer.committed();
      } catch {
        // Only housekeeping listens: the group itself is committed.
      }
      try {
        runAll(group.callbacks, undefined);
      } catch (err) {
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
  }

  /**
   * Every group sent after a lost one is lost too (built on it): wait for their answers, forget what this
   * store remembered of its writes (the file is the truth again), and only then tell the callbacks, so
   * writes they make start from what is stored.
   */
  private lost(gens: number[], message: string): void {
    this.losses += 1;
    const err = new Error(`The task store could not commit its writes: ${message}`);
    for (const gen of gens) {
      const group = this.take(gen);
      this.lastLost = { gen, err };
      for (const callback of group.callbacks) this.lostCallbacks.push({ callback, err });
    }
    if (this.recovering) return;
    this.recovering = true;
    try {
      this.send();
      this.writer.waitUntil(
        () => this.inFlight.size === 0,
        (reply) => this.onReply(reply),
      );
    } finally {
      this.recovering = false;
    }
    this.known.clear();
    this.pendingKeys.clear();
    const waiting = this.lostCallbacks;
    this.lostCallbacks = [];
    let failure: { err: unknown } | undefined;
    for (const { callback, err: lostWith } of waiting) {
      try {
        callback(lostWith);
      } catch (thrown) {
        failure ??= { err: thrown };
      }
    }
    if (failure) throw failure.err;
  }

  private take(gen: number): HeldGroup {
    const group = this.inFlight.get(gen);
    if (!group) throw new Error(`The task store's writer answered group ${gen}, which it was never sent.`);
    this.inFlight.delete(gen);
    this.answeredGen = gen;
    if (this.inFlight.size === 0) this.writer.hold(false);
    return group;
  }

  /** The writer thread died: nothing more can be stored, and every write not yet answered is lost. */
  private onWriterExit(err: Error): void {
    if (this.closed || this.failure) return;
    this.failure = new Error(`The task store cannot write any more: ${err.message}. Restart contactor.`, {
      cause: err,
    });
    const groups = [...this.inFlight.values(), ...(this.held ? [this.held] : [])];
    this.inFlight.clear();
    this.held = undefined;
    clearImmediate(this.timer);
    this.writer.hold(false);
    for (const group of groups) runAll(group.callbacks, this.failure);
  }
}

function lastOf(groups: Map<number, HeldGroup>): HeldGroup | undefined {
  let last: HeldGroup | undefined;
  for (const group of groups.values()) last = group;
  return last;
}

/** Every callback runs even if one throws (its waiters would hang otherwise); the throw comes after. */
function runAll(callbacks: Callback[], lost: Error | undefined): void {
  let failure: { err: unknown } | undefined;
  for (const callback of callbacks) {
    try {
      callback(lost);
    } catch (err) {
      failure ??= { err };
    }
  }
  if (failure) throw failure.err;
}

function serialized(events: readonly StreamEvent[]): { seq: number; json: string }[] {
  const out: { seq: number; json: string }[] = [];
  for (const event of events) if (isTaskEvent(event)) out.push({ seq: event.seq, json: JSON.stringify(event) });
  return out;
}
