/** The end of `send` and `answer`: follow the task to its next stop with the progress line, then print it. */
import type { CliTask } from '../../schema/cli.js';
import type { BridgeClient } from '../bridge-client/bridge-client.js';
import type { CliContext } from '../context.js';
import { exitForState } from '../exit-codes.js';
import { followTask, type FollowStart } from '../bridge-client/follow.js';
import { ProgressLine } from './progress-line.js';
import { printOutcome } from './render-task.js';

export async function followAndPrint(
  cli: CliContext,
  client: BridgeClient,
  start: FollowStart,
  timeoutSeconds: number | undefined,
): Promise<number> {
  const progress = new ProgressLine(cli.out);
  const task = await followTask(client, start, {
    onEvent: progress.onEvent,
    ...(timeoutSeconds !== undefined ? { timeoutMs: timeoutSeconds * 1000 } : {}),
  }).finally(() => progress.end());
  return printTask(cli, task);
}

/** A task at a stop: the whole task with --json, else as a person reads it; the exit code follows its state. */
export function printTask(cli: CliContext, task: CliTask): number {
  if (cli.json) {
    cli.out.doc(task);
    return exitForState(task.status.state);
  }
  return printOutcome(cli.out, task);
}
