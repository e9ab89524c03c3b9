/**
 * `contactor top`: the agents and tasks of the bridge, live, in the terminal (README "See what your agents
 * are doing"). On a terminal it runs the screen (main/cli/top/, loaded only here); piped, it prints the
 * table once; `--json` prints one `activity/snapshot` document.
 */
import type { Command } from 'commander';
import { ActivitySnapshotSchema } from '../../schema/activity.js';
import type { CliContext, Runner } from '../context.js';
import { EXIT } from '../exit-codes.js';

export function registerTop(program: Command, run: Runner): void {
  program
    .command('top')
    .description('the agents and their tasks, live: follow a task, answer, cancel (--json: one snapshot)')
    .action(run(top));
}

async function top(cli: CliContext): Promise<number> {
  const client = cli.client();
  const terminal = process.stdout.isTTY === true;
  if (cli.json || !terminal) {
    const snap = await client.call('activity/snapshot', {}, ActivitySnapshotSchema);
    if (cli.json) cli.out.doc(snap);
    else {
      const { snapshotLines } = await import('../top/snapshot-text.js');
      for (const line of snapshotLines(snap, Date.now())) cli.out.line(line);
    }
    return EXIT.completed;
  }
  // React picks its build when it loads: the production one unless the person asked otherwise (the
  // development build is slower and writes warnings over the screen).
  process.env.NODE_ENV ??= 'production';
  // The screen reconnects to a bridge that went away; a bridge that is not there at all gets the answer
  // every verb gives (how to start it, exit 5), not a `[reconnecting…]` that never ends.
  await client.call('activity/snapshot', {}, ActivitySnapshotSchema);
  const { runTopScreen } = await import('../top/screen.js');
  const noColor = cli.env.NO_COLOR !== undefined && cli.env.NO_COLOR !== '';
  await runTopScreen({ client, colors: !noColor });
  return EXIT.completed;
}
