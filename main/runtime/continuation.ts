/**
 * Whether a message may continue a task (the standard A2A route for an answer: a message carrying the
 * task's `taskId`). Each refusal says what the sender can do instead.
 */
import { BridgeError } from '../domain/errors.js';
import { isTerminal, type Task } from '../domain/task.js';

export function checkContinuation(task: Task, to: { agent: string; contextId?: string | undefined }): void {
  if (to.contextId && to.contextId !== task.contextId) {
    throw new BridgeError(
      'invalid-params',
      `contextId "${to.contextId}" does not match task ${task.id}'s context "${task.contextId}"`,
    );
  }
  if (task.metadata.agent !== to.agent) {
    throw new BridgeError(
      'invalid-params',
      `task ${task.id} belongs to agent "${task.metadata.agent}", not "${to.agent}"`,
    );
  }
  if (isTerminal(task.status.state)) {
    throw new BridgeError(
      'unsupported-operation',
      `task ${task.id} is ${task.status.state}; it takes no more messages — send a new task with contextId "${task.contextId}" to continue the conversation`,
    );
  }
  if (task.status.state !== 'input-required') {
    throw new BridgeError(
      'unsupported-operation',
      `task ${task.id} is ${task.status.state}, not waiting for input; wait for it or cancel it`,
    );
  }
}
