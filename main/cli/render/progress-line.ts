/**
 * `task <id> [submitted] → [working] → [completed] 7.5s` on stderr: the states drawn only on a terminal;
 * the task's id (when asked for) as soon as the first event names it, on a terminal or not, so whoever
 * started the task can find it (stdout stays the result's).
 *
 * With both streams on a terminal (`Output.live`) the wait shows itself: the line carries the time so far,
 * redrawn each second while nothing else comes, and the reply's words go to stdout as the agent streams them,
 * as `watch` shows them; the line ends before the first word, and a later state starts a line of its own.
 * Piped, nothing of this is drawn and the reply is printed whole at the end (README.md#cli).
 */
import { textOf, type Part } from '../../domain/task.js';
import type { CliTask, StreamResult } from '../../schema/cli.js';
import type { Output } from './output.js';
import { joined, shown, type Shown } from './screen-text.js';
import { stateTag } from './render-task.js';

/** The clock the line reads; a test passes its own. */
export interface Clock {
  now(): number;
  every(ms: number, tick: () => void): { stop(): void };
}

const realClock: Clock = {
  now: () => Date.now(),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  },
};

export class ProgressLine {
  private last: string | undefined;
  private taskId: string | undefined;
  private readonly started: number;
  private readonly live: boolean;
  /** What the open line shows so far (live only); undefined when no line is open. */
  private line: Shown[] | undefined;
  private ticker: { stop(): void } | undefined;
  /** The streamed artifact and its text so far (live only): the reply, unless a later artifact replaced it. */
  private artifactId: string | undefined;
  private text = '';
  private textOpen = false;

  constructor(
    private readonly out: Output,
    private readonly opts: {
      showTaskId?: boolean;
      clock?: Clock;
      /** The task as it was before this wait (an answered question): its reply so far is not news. */
      before?: CliTask;
    } = {},
  ) {
    this.live = out.live;
    this.started = this.clock.now();
  }

  private get clock(): Clock {
    return this.opts.clock ?? realClock;
  }

  /** The reply's text as it was streamed, when it was (live); the caller prints only what is still missing. */
  get streamed(): { artifactId: string; text: string } | undefined {
    return this.artifactId === undefined ? undefined : { artifactId: this.artifactId, text: this.text };
  }

  readonly onEvent = (result: StreamResult): void => {
    if (this.taskId === undefined) this.named(result.kind === 'task' ? result.id : result.taskId);
    if (this.live && result.kind === 'artifact-update') return this.words(result);
    this.state(result);
    if (this.live && result.kind === 'task') this.snapshot(result);
  };

  private state(result: StreamResult): void {
    if (!this.out.interactive) return;
    const state =
      result.kind === 'task' ? result.status.state : result.kind === 'status-update' ? result.status.state : undefined;
    if (state === undefined || state === this.last) return;
    if (this.live) this.liveState(state);
    else this.out.progress(shown`${this.last === undefined ? '' : ' → '}${stateTag(state, this.out.ce)}`);
    this.last = state;
  }

  end(): void {
    this.ticker?.stop();
    this.ticker = undefined;
    if (!this.out.interactive) return;
    if (this.live) {
      this.endText();
      if (this.line !== undefined) this.draw(`${this.seconds().toFixed(1)}s`, true);
      this.line = undefined;
      return;
    }
    if (this.last === undefined && !(this.opts.showTaskId && this.taskId !== undefined)) return;
    this.out.progress(` ${this.seconds().toFixed(1)}s\n`);
  }

  private named(taskId: string): void {
    this.taskId = taskId;
    if (!this.opts.showTaskId) return;
    if (this.live) this.open(`task ${taskId}`);
    else if (this.out.interactive) this.out.progress(`task ${taskId} `);
    else this.out.note(`task ${taskId}`);
  }

  private liveState(state: string): void {
    this.endText();
    const tag = stateTag(state, this.out.ce);
    if (this.line === undefined) this.open(tag);
    else {
      this.line.push(shown`${this.line.length > 1 || this.last !== undefined ? ' → ' : ' '}${tag}`);
      this.draw(`${Math.floor(this.seconds())}s`);
    }
  }

  /** Starts a progress line (ended by the reply's first words or by `end`), ticking while it is open. */
  private open(first: Shown): void {
    this.line = [first];
    this.draw(`${Math.floor(this.seconds())}s`);
    this.ticker ??= this.clock.every(1000, () => {
      if (this.line !== undefined) this.draw(`${Math.floor(this.seconds())}s`);
    });
  }

  /** The open line again, from its start, with `elapsed` after it (and whatever was longer erased). */
  private draw(elapsed: string, ends = false): void {
    if (this.line === undefined) return;
    const line = joined(this.line, '');
    this.out.progress(ends ? shown`\r${line} ${elapsed}\u001b[K\n` : shown`\r${line} ${elapsed}\u001b[K`);
  }

  /**
   * A follow that joins a task under way (`answer`) starts from its snapshot: the words already said since
   * are shown first, the way `watch` shows them, unless the task had that very reply before this wait.
   */
  private snapshot(task: CliTask): void {
    const last = task.artifacts.at(-1);
    if (last === undefined) return;
    const text = textOf(last.parts as Part[]);
    const earlier = this.opts.before?.artifacts.find((a) => a.artifactId === last.artifactId);
    if (earlier !== undefined && textOf(earlier.parts as Part[]) === text) return;
    this.words({ artifactId: last.artifactId, text, append: false });
  }

  private words(
    update: Extract<StreamResult, { kind: 'artifact-update' }> | { artifactId: string; text: string; append: boolean },
  ): void {
    const [artifactId, text] =
      'artifact' in update
        ? [update.artifact.artifactId, textOf(update.artifact.parts as Part[])]
        : [update.artifactId, update.text];
    if (text === '') return;
    if (artifactId !== this.artifactId || !update.append) {
      this.artifactId = artifactId;
      this.text = '';
    }
    this.text += text;
    if (this.line !== undefined) {
      this.draw(`${Math.floor(this.seconds())}s`, true);
      this.line = undefined;
    }
    this.out.chunk(text);
    this.textOpen = !text.endsWith('\n');
  }

  private endText(): void {
    if (this.textOpen) this.out.chunk('\n');
    this.textOpen = false;
  }

  private seconds(): number {
    return (this.clock.now() - this.started) / 1000;
  }
}
