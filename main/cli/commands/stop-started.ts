/**
 * What Ctrl-C does to the tasks a `send` started (README "Stopping a send"): cancel each one and wait for
 * the bridge's answer, or with `--detach` leave them running and say how to follow them. One line per task
 * on stderr; stdout stays the result's.
 */
import { CliTaskSchema, type CliTask } from '../../schema/cli.js';
import type { BridgeClient } from '../bridge-client/bridge-client.js';
import type { CliContext } from '../context.js';
import { CliError } from '../exit-codes.js';

export interface StartedTask {
  id: string;
  /** Named when several agents got the brief (fan-out). */
  agent?: string;
}

/** The bridge's answer per task: its state after the cancel, or undefined when the bridge gave none. */
export type Stopped = Map<string, CliTask | undefined>;

export async function stopStarted(
  cli: CliContext,
  client: BridgeClient,
  tasks: readonly StartedTask[],
  detach: boolean,
): Promise<Stopped> {
  const stopped: Stopped = new Map();
  for (const task of tasks) {
    const label = `task ${task.id}${task.agent ? ` (${task.agent})` : ''}`;
    stopped.set(task.id, detach ? await leave(cli, client, task, label) : await cancel(cli, client, task, label));
  }
  return stopped;
}

async function leave(cli: CliContext, client: BridgeClient, task: StartedTask, label: string) {
  cli.out.note(`left ${label} running; follow it: contactor watch ${task.id} (or contactor get ${task.id})`);
  return client.call('tasks/get', { id: task.id }, CliTaskSchema).catch(() => undefined);
}

async function cancel(
  cli: CliContext,
  client: BridgeClient,
  task: StartedTask,
  label: string,
): Promise<CliTask | undefined> {
  try {
    const canceled = await client.call('tasks/cancel', { id: task.id }, CliTaskSchema);
    cli.out.note(`canceled ${label}`);
    return canceled;
  } catch (err) {
    // It reached a terminal state between the Ctrl-C and the cancel: say which, there is nothing to undo.
    if (err instanceof CliError && err.rpc?.code === -32002) {
      const ended = await client.call('tasks/get', { id: task.id }, CliTaskSchema).catch(() => undefined);
      cli.out.note(`${label} had already ended (${ended?.status.state ?? 'stopped'}); nothing to cancel`);
      return ended;
    }
    const why = err instanceof Error ? err.message : String(err);
    cli.out.note(`could not cancel ${label} (${why}); it may still be running: contactor cancel ${task.id}`);
    return undefined;
  }
}
