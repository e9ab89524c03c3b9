/**
 * A new send becomes a stored task: a queue place first (unless a loop guard already rejected it), then
 * the insert under its idempotency key. A replay of the same messageId and payload returns the stored
 * task; the same messageId with another payload is refused.
 */
import { BridgeError } from '../domain/errors.js';
import type { StoredTask, TaskStore } from '../ports.js';
import type { DelegationChain } from './delegation.js';
import type { SendRequest } from './dispatcher.js';
import type { LiveTasks } from './live-tasks.js';
import { newTask } from './new-task.js';
import { payloadHash } from './payload-hash.js';
import type { AgentEntry } from './registry.js';

export type Intake =
  | { kind: 'created'; stored: StoredTask; unreserve: (() => void) | undefined }
  /** The same messageId and payload were sent before: that task is the answer. */
  | { kind: 'replay'; taskId: string };

export function storeNewTask(
  deps: { store: TaskStore; live: LiveTasks },
  entry: AgentEntry,
  req: SendRequest,
  guard: { chain: DelegationChain; rejection: string | undefined },
): Intake {
  const unreserve = guard.rejection ? undefined : reserveRoom(deps.live, entry, req);
  const task = newTask(req, guard.chain, guard.rejection);
  // Only a send with its own messageId can be replayed: only then is its payload worth hashing (files too).
  const key = req.idempotent
    ? {
        scope: entry.name,
        messageId: req.message.messageId,
        payloadHash: payloadHash({
          agent: entry.name,
          parts: req.message.parts,
          contextId: req.message.contextId,
          cwd: req.cwd,
        }),
      }
    : undefined;
  let outcome: ReturnType<TaskStore['create']>;
  try {
    outcome = deps.store.create(task, [], key);
  } catch (err) {
    unreserve?.(); // a failed insert must not hold a queue place forever
    throw err;
  }
  const { stored, created, payloadHash: storedHash } = outcome;
  if (created) return { kind: 'created', stored, unreserve };
  unreserve?.();
  if (storedHash !== key?.payloadHash) {
    throw new BridgeError(
      'idempotency-conflict',
      `messageId "${req.message.messageId}" was already used for a different request (task ${stored.task.id}); use a new messageId for new work`,
      { taskId: stored.task.id },
    );
  }
  return { kind: 'replay', taskId: stored.task.id };
}

/**
 * A queue place for a new send. When the queue is full, a replay of a task still queued or running
 * passes without one (the store then tells replay from conflict): a client retrying after a timeout
 * must get its task back, not QueueFull.
 */
function reserveRoom(live: LiveTasks, entry: AgentEntry, req: SendRequest): (() => void) | undefined {
  try {
    return entry.shard.reserve();
  } catch (err) {
    const messageId = req.message.messageId;
    const replay = live
      .all()
      .some((l) => l.task.metadata.agent === entry.name && l.task.history[0]?.messageId === messageId);
    if (req.idempotent && replay) return undefined;
    throw err;
  }
}
