import { creatorOf, PERSON_BY_TOKEN } from '../domain/authority.js';
import { agentMessage, type Task } from '../domain/task.js';
import type { DelegationChain } from './delegation.js';
import type { SendRequest } from './dispatcher.js';
import { timeOrderedId } from './task-ids.js';

/**
 * A new task as the requester's send creates it: `submitted`, or already `rejected` by a loop guard
 * (stored all the same, so the refusal is auditable and visible like any task).
 */
export function newTask(req: SendRequest, chain: DelegationChain, rejection: string | undefined): Task {
  const now = new Date().toISOString();
  // Time-ordered, so the store's indexes grow at one end (see task-ids.ts).
  const id = timeOrderedId();
  const contextId = req.message.contextId ?? timeOrderedId();
  const agent = req.agent;
  return {
    kind: 'task',
    id,
    contextId,
    status: rejection
      ? {
          state: 'rejected',
          timestamp: now,
          message: agentMessage(crypto.randomUUID(), rejection, { taskId: id, contextId }),
        }
      : { state: 'submitted', timestamp: now },
    history: [{ ...req.message, taskId: id, contextId }],
    artifacts: [],
    metadata: {
      agent,
      requiresReview: true,
      createdAt: now,
      delegationDepth: chain.depth,
      visitedAgents: rejection ? chain.visited : [...chain.visited, agent],
      ...(req.cwd ? { cwd: req.cwd } : {}),
      // Who may answer its questions and cancel it besides the person (domain/authority.ts).
      createdBy: creatorOf(req.by ?? PERSON_BY_TOKEN),
      // The task this one was delegated from, so the activity view can list a task's children; from an
      // agent's token only a task that agent runs (resolveChain decides), so no agent files its work
      // under another's task.
      ...(chain.parent ? { parentTaskId: chain.parent.id } : {}),
      // A fan-out child says which fan-out it belongs to, so tasks/list can group them.
      ...(req.message.metadata?.orchestration ? { orchestration: req.message.metadata.orchestration } : {}),
    },
  };
}
