/** `get`, `answer`, `cancel`: one task by id. */
import type { Command } from 'commander';
import { CliTaskSchema, type CliTask } from '../../schema/cli.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { followAndPrint, printTask } from '../render/follow-and-print.js';
import { Interrupted, stopsAt } from '../bridge-client/follow.js';
import { Interrupts } from '../interrupts.js';
import { stoppedWatching } from './watch.js';
import { parseSeconds } from './arguments.js';

export function registerTaskVerbs(program: Command, run: Runner): void {
  program
    .command('get')
    .description("show a task: its state, its reply or its question (exit code follows the task's state)")
    .argument('<taskId>')
    .action(run(get));
  program
    .command('answer')
    .description('answer a waiting task (yes | no | option number | option text | free text), then follow it')
    .argument('<taskId>')
    .argument('<answer...>')
    .option('--text', 'the answer is free text, even when it looks like an option number')
    .option('--no-wait', 'do not follow the task after answering')
    .option('--by <name>', 'a name for the record, kept beside the identity your token proves ("person (token: NAME)")')
    .option('--timeout <seconds>', 'stop waiting after this long', parseSeconds)
    .action(run(answer));
  program.command('cancel').description('cancel a task').argument('<taskId>').action(run(cancel));
}

async function get(cli: CliContext, taskId: string): Promise<number> {
  const task = await cli.client().call('tasks/get', { id: taskId }, CliTaskSchema);
  if (!cli.json)
    cli.out.note(`${task.metadata.agent} · task ${task.id} · ${task.status.state} · context ${task.contextId}`);
  return printTask(cli, task);
}

async function answer(
  cli: CliContext,
  taskId: string,
  words: string[],
  opts: { wait: boolean; by?: string; timeout?: number; text?: boolean },
): Promise<number> {
  const client = cli.client();
  const answered = await client.call(
    'tasks/answer',
    {
      taskId,
      answer: words.join(' '),
      ...(opts.by ? { answeredBy: opts.by } : {}),
      ...(opts.text ? { freeText: true } : {}),
    },
    CliTaskSchema,
  );
  if (!opts.wait) {
    if (cli.json) cli.out.doc(answered);
    else cli.out.line(`answered; task ${answered.id} is ${answered.status.state}`);
    return EXIT.completed;
  }
  if (stopsAt(answered.status.state)) return printTask(cli, answered);
  // Ctrl-C stops the following, never the task: the answer is given and the agent works on, as with `watch`.
  const interrupts = Interrupts.listen();
  try {
    return await followAndPrint(
      cli,
      client,
      { method: 'tasks/resubscribe', params: { id: taskId } },
      { timeoutSeconds: opts.timeout, signal: interrupts.signal, before: answered },
    );
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err;
    return await stoppedWatching(cli, taskId, interrupts.exitCode);
  } finally {
    interrupts.dispose();
  }
}

/**
 * Cancels a running task. One that had already ended says so (docs/contract.md#cli): already canceled is
 * exit 0, since what was asked for holds; completed, failed or rejected is exit 2, since nothing was canceled
 * (the bridge's -32002) and a script must not take the task for canceled.
 */
async function cancel(cli: CliContext, taskId: string): Promise<number> {
  const client = cli.client();
  let task: CliTask;
  try {
    task = await client.call('tasks/cancel', { id: taskId }, CliTaskSchema);
  } catch (err) {
    if (!(err instanceof CliError && err.rpc?.code === -32002)) throw err;
    const ended = await client.call('tasks/get', { id: taskId }, CliTaskSchema);
    if (ended.status.state !== 'canceled')
      throw new CliError(`task ${taskId} had already ${ended.status.state}; nothing to cancel`, EXIT.usage);
    if (cli.json) cli.out.doc(ended);
    else cli.out.line(`task ${taskId} was already canceled`);
    return EXIT.completed;
  }
  if (cli.json) cli.out.doc(task);
  else cli.out.line(`task ${task.id} is ${task.status.state}`);
  return EXIT.completed;
}
