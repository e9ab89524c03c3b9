/** The end of `send` and `answer`: follow the task to its next stop with the progress line, then print it. */
import type { CliTask } from '../../schema/cli.js';
import type { BridgeClient } from '../bridge-client/bridge-client.js';
import type { CliContext } from '../context.js';
import { exitForState } from '../exit-codes.js';
import { followTask, type FollowStart } from '../bridge-client/follow.js';
import { ProgressLine } from './progress-line.js';
import { printOutcome, resultText, type OutcomeOptions } from './render-task.js';

export interface FollowAndPrintOptions {
  timeoutSeconds?: number | undefined;
  /** Print the task's id as soon as it exists (a command that created the task). */
  showTaskId?: boolean;
  /** The task as it was before the follow (an answered question), so its earlier reply is not shown as new. */
  before?: CliTask;
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
  const progress = new ProgressLine(cli.out, {
    showTaskId: opts.showTaskId === true,
    ...(opts.before ? { before: opts.before } : {}),
  });
  const task = await followTask(client, start, {
    onEvent: progress.onEvent,
    ...(opts.timeoutSeconds !== undefined ? { timeoutMs: opts.timeoutSeconds * 1000 } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  }).finally(() => progress.end());
  const streamed = progress.streamed;
  const outcome: OutcomeOptions = { ownMessageId: opts.ownMessageId === true };
  if (cli.json || streamed === undefined) return printTask(cli, task, outcome);
  return printOutcome(cli.out, afterStreaming(task, streamed), {
    ...outcome,
    partialShown: task.status.state === 'failed' && streamed.text !== '',
  });
}

/**
 * The task with only the part of its reply that was not streamed already: usually nothing; the whole reply
 * when what streamed is not how it begins (the agent replaced it), so the person always reads all of it.
 * A failed task's partial reply is treated the same way (render-task.ts prints it and says it is partial).
 */
function afterStreaming(task: CliTask, streamed: { artifactId: string; text: string }): CliTask {
  const state = task.status.state;
  if (state !== 'completed' && state !== 'failed') return { ...task, artifacts: [] };
  const last = task.artifacts.at(-1);
  const reply = resultText(task);
  if (last?.artifactId !== streamed.artifactId || !reply.startsWith(streamed.text)) return task;
  const rest = reply.slice(streamed.text.length);
  return { ...task, artifacts: rest === '' ? [] : [{ ...last, parts: [{ kind: 'text', text: rest }] }] };
}

/** A task at a stop: the whole task with --json, else as a person reads it; the exit code follows its state. */
export function printTask(cli: CliContext, task: CliTask, opts: OutcomeOptions = {}): number {
  if (cli.json) {
    cli.out.doc(task);
    return exitForState(task.status.state);
  }
  return printOutcome(cli.out, task, opts);
}
