/**
 * `contactor watch <taskId>`: the task live — status changes and progress notes on stderr, the reply
 * text on stdout as it arrives, and at a stop the question with how to answer it.
 */
import type { Command } from 'commander';
import { textOf, type Part } from '../../domain/task.js';
import { CliTaskSchema, ProgressNoteSchema, type StreamResult } from '../../schema/cli.js';
import type { CliContext, Runner } from '../context.js';
import { exitForState } from '../exit-codes.js';
import { followTask, Interrupted } from '../bridge-client/follow.js';
import { Interrupts } from '../interrupts.js';
import type { Output } from '../render/output.js';
import { printOutcome, stateTag } from '../render/render-task.js';
import { oneLine, shown, type Shown } from '../render/screen-text.js';

export function registerWatch(program: Command, run: Runner): void {
  program
    .command('watch')
    .description('follow a task live until it completes, fails or waits for an answer')
    .argument('<taskId>')
    .action(run(watch));
}

async function watch(cli: CliContext, taskId: string): Promise<number> {
  const view = new WatchView(cli.out);
  // Ctrl-C stops the watching, never the task: it is someone's work, not this command's.
  const interrupts = Interrupts.listen();
  let task;
  try {
    task = await followTask(
      cli.client(),
      { method: 'tasks/resubscribe', params: { id: taskId } },
      { signal: interrupts.signal, ...(cli.json ? {} : { onEvent: view.onEvent }) },
    );
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err;
    view.endText();
    return stoppedWatching(cli, taskId, interrupts.exitCode);
  } finally {
    interrupts.dispose();
  }
  if (cli.json) {
    cli.out.doc(task);
    return exitForState(task.status.state);
  }
  view.endText();
  // Finished before we subscribed: nothing was shown live, so show it all now.
  if (!view.sawEvents) return printOutcome(cli.out, task);
  if (task.status.state === 'completed') return exitForState(task.status.state);
  return printOutcome(cli.out, { ...task, artifacts: [] });
}

/**
 * Ctrl-C while `watch` or `answer` follows a task: the following stops, the task runs on, and the person
 * reads how to pick it up again (README.md#stopping-a-send). Returns the exit code (130 for Ctrl-C).
 */
export async function stoppedWatching(cli: CliContext, taskId: string, exitCode: number): Promise<number> {
  cli.out.note(
    `stopped watching task ${taskId}; it keeps running: contactor watch ${taskId} to follow it again, contactor cancel ${taskId} to stop it`,
  );
  // --json: the one document is the task as it is now.
  if (cli.json) cli.out.doc(await cli.client().call('tasks/get', { id: taskId }, CliTaskSchema));
  return exitCode;
}

class WatchView {
  private state: string | undefined;
  private openLine = false;
  sawEvents = false;

  constructor(private readonly out: Output) {}

  readonly onEvent = (result: StreamResult): void => {
    this.sawEvents = true;
    switch (result.kind) {
      case 'task':
        this.status(result.status.state, `${result.metadata.agent} · task ${result.id}`);
        this.write(result.artifacts.map((a) => textOf(a.parts as Part[])).join(''));
        break;
      case 'status-update': {
        const note = ProgressNoteSchema.safeParse(result.metadata);
        if (note.success)
          return this.note(this.out.ce.dim(shown`  · ${note.data.progress.kind}: ${oneLine(note.data.progress.text)}`));
        this.status(
          result.status.state,
          result.status.message && !result.final ? textOf(result.status.message.parts as Part[]) : '',
        );
        break;
      }
      case 'artifact-update':
        this.write(textOf(result.artifact.parts as Part[]));
        break;
      default: {
        const never: never = result;
        return never;
      }
    }
  };

  endText(): void {
    if (this.openLine) this.out.chunk('\n');
    this.openLine = false;
  }

  private status(state: string, detail: string): void {
    if (state === this.state && !detail) return;
    this.state = state;
    this.note(shown`${stateTag(state, this.out.ce)}${detail ? ` ${detail}` : ''}`);
  }

  private note(text: Shown): void {
    this.endText();
    this.out.note(text);
  }

  private write(text: string): void {
    if (!text) return;
    this.out.chunk(text);
    this.openLine = !text.endsWith('\n');
  }
}
