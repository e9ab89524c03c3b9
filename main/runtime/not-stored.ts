/**
 * The answer when the store could not keep a task's change (its group commit failed: a full disk, an
 * I/O error). Safe to show and retryable: nothing of the lost change was told to anyone, so the same
 * work sent again under a new messageId starts clean once the store can write again.
 */
import { BridgeError } from '../domain/errors.js';

export function notStored(err: Error, taskId?: string): BridgeError {
  if (err instanceof BridgeError) return err;
  const cause = err.cause instanceof Error ? err.cause : err;
  const what = taskId === undefined ? 'the task' : `task ${taskId}`;
  const failure = new BridgeError(
    'not-stored',
    `${what} could not be stored: ${cause.message}. Free disk space (or fix the data dir), then re-send under a new messageId`,
    { ...(taskId === undefined ? {} : { taskId }), retryable: true },
  );
  failure.cause = err;
  return failure;
}
