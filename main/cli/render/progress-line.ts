/** `[submitted] → [working] → [completed] 7.5s` on stderr, drawn only on a terminal. */
import type { StreamResult } from '../../schema/cli.js';
import type { Output } from './output.js';
import { stateTag } from './render-task.js';

export class ProgressLine {
  private last: string | undefined;
  private readonly started = Date.now();

  constructor(private readonly out: Output) {}

  readonly onEvent = (result: StreamResult): void => {
    if (!this.out.interactive) return;
    const state =
      result.kind === 'task' ? result.status.state : result.kind === 'status-update' ? result.status.state : undefined;
    if (state === undefined || state === this.last) return;
    this.out.progress(`${this.last === undefined ? '' : ' → '}${stateTag(state, this.out.ce)}`);
    this.last = state;
  };

  end(): void {
    if (!this.out.interactive || this.last === undefined) return;
    this.out.progress(` ${((Date.now() - this.started) / 1000).toFixed(1)}s\n`);
  }
}
