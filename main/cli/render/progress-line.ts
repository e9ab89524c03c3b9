/**
 * `task <id> [submitted] → [working] → [completed] 7.5s` on stderr: the states drawn only on a terminal;
 * the task's id (when asked for) as soon as the first event names it, on a terminal or not, so whoever
 * started the task can find it (stdout stays the result's).
 */
import type { StreamResult } from '../../schema/cli.js';
import type { Output } from './output.js';
import { shown } from './screen-text.js';
import { stateTag } from './render-task.js';

export class ProgressLine {
  private last: string | undefined;
  private taskId: string | undefined;
  private readonly started = Date.now();

  constructor(
    private readonly out: Output,
    private readonly opts: { showTaskId?: boolean } = {},
  ) {}

  readonly onEvent = (result: StreamResult): void => {
    if (this.taskId === undefined) this.named(result.kind === 'task' ? result.id : result.taskId);
    if (!this.out.interactive) return;
    const state =
      result.kind === 'task' ? result.status.state : result.kind === 'status-update' ? result.status.state : undefined;
    if (state === undefined || state === this.last) return;
    this.out.progress(shown`${this.last === undefined ? '' : ' → '}${stateTag(state, this.out.ce)}`);
    this.last = state;
  };

  end(): void {
    if (!this.out.interactive) return;
    if (this.last === undefined && !(this.opts.showTaskId && this.taskId !== undefined)) return;
    this.out.progress(` ${((Date.now() - this.started) / 1000).toFixed(1)}s\n`);
  }

  private named(taskId: string): void {
    this.taskId = taskId;
    if (!this.opts.showTaskId) return;
    if (this.out.interactive) this.out.progress(`task ${taskId} `);
    else this.out.note(`task ${taskId}`);
  }
}
