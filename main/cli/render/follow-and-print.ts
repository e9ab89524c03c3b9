/** The end of `send` and `answer`: follow the task to its next stop with the progress line, then print it. */
import type { CliTask } from '../../schema/cli.js';
import type { BridgeClient } from '../bridge-client/bridge-client.js';
import type { CliContext } from '../context.js';
import { exitForState } from '../exit-codes.js';
import { followTask, type FollowStart } from '../bridge-client/follow.js';
import { ProgressLine } from './progress-line.js';
import { printOutcome, type OutcomeOptions } from './render-task.js';

export interface FollowAndPrintOptions {
  timeoutSeconds?: number | undefined;
  /** Print the task's id as soon as it exists (a command that created the task). */
  showTaskId?: boolean;
  /** Ctrl-C: the follow ends with `Interrupted` (bridge-client/follow.ts). */
  signal?: AbortSignal;
  /** The send named its own --message-id (render-task.ts OutcomeOptions). */
  ownMessageId?: boolean;
}

export async function followAndPrint(
  cli: CliContext,
  client: BridgeClient,
  start: FollowStart,
  opts: FollowAndPrintOptions = {},
): Promise<number> {
  const progress = new ProgressLine(cli.out, { showTaskId: opts.showTaskId === true });
  const task = await followTask(client, start, {
    onEvent: progress.onEvent,
    ...(opts.timeoutSeconds !== undefined ? { timeoutMs: opts.timeoutSeconds * 1000 } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  }).finally(() => progress.end());
  return printTask(cli, task, { ownMessageId: opts.ownMessageId === true });
}

/** A task at a stop: the whole task with --json, else as a person reads it; the exit code follows its state. */
export function printTask(cli: CliContext, task: CliTask, opts: OutcomeOptions = {}): number {
  if (cli.json) {
    cli.out.doc(task);
    return exitForState(task.status.state);
  }
  return printOutcome(cli.out, task, opts);
}
