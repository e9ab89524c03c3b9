/** `pending` (open questions, oldest first) and `tasks` (recent tasks). */
import type { Command } from 'commander';
import { TASK_STATES, textOf, type Part, type TaskState } from '../../domain/task.js';
import { PendingListSchema, TaskPageSchema } from '../../schema/cli.js';
import type { CliContext, Runner } from '../context.js';
import { CliError, EXIT } from '../exit-codes.js';
import { questionLines } from '../render/render-pending.js';
import { stateTag } from '../render/render-task.js';
import { table, truncate } from '../render/table.js';
import { parseCount } from './arguments.js';

export function registerListings(program: Command, run: Runner): void {
  program
    .command('pending')
    .description('open questions from agents, oldest first, with how to answer each')
    .action(run(pending));
  program
    .command('tasks')
    .description('recent tasks, newest first')
    .option('--agent <name>', 'only this agent')
    .option('--state <state>', `only this state (${TASK_STATES.join(', ')})`)
    .option('--context <contextId>', 'only this conversation')
    .option('--limit <n>', 'how many (1-100)', parseCount, 20)
    .action(run(tasks));
}

async function pending(cli: CliContext): Promise<number> {
  const list = await cli.client().call('pending/list', {}, PendingListSchema);
  if (cli.json) {
    cli.out.doc(list);
    return EXIT.completed;
  }
  if (list.tasks.length === 0) cli.out.line('no open questions');
  list.tasks.forEach((task, i) => {
    if (i > 0) cli.out.line();
    for (const line of questionLines(task, cli.out.c)) cli.out.line(line);
  });
  return EXIT.completed;
}

async function tasks(
  cli: CliContext,
  opts: { agent?: string; state?: string; context?: string; limit: number },
): Promise<number> {
  if (opts.state !== undefined && !(TASK_STATES as readonly string[]).includes(opts.state)) {
    throw new CliError(`unknown --state "${opts.state}"; use one of ${TASK_STATES.join(', ')}`, EXIT.usage);
  }
  const params = {
    pageSize: opts.limit,
    ...(opts.agent ? { agent: opts.agent } : {}),
    ...(opts.state ? { states: [opts.state as TaskState] } : {}),
    ...(opts.context ? { contextId: opts.context } : {}),
  };
  const page = await cli.client().call('tasks/list', params, TaskPageSchema);
  if (cli.json) {
    cli.out.doc(page);
    return EXIT.completed;
  }
  if (page.tasks.length === 0) {
    cli.out.line('no tasks');
    return EXIT.completed;
  }
  const rows = page.tasks.map((t) => [
    t.id,
    t.metadata.agent,
    stateTag(t.status.state, cli.out.c),
    t.status.timestamp ?? '',
    truncate(textOf((t.history[0]?.parts ?? []) as Part[]), 50),
  ]);
  for (const line of table(['TASK', 'AGENT', 'STATE', 'UPDATED', 'BRIEF'], rows)) cli.out.line(line);
  if (page.totalSize !== undefined && page.totalSize > page.tasks.length)
    cli.out.note(`${page.tasks.length} of ${page.totalSize}; --limit shows more`);
  return EXIT.completed;
}
