/**
 * Stopping one CLI run: its child and every process it started, once, however many ask (the task's
 * abort, the backend's close), and the wait for its end that a stop bounds.
 */
import {
  exited,
  type AgentChild,
  type ChildExit,
  type StopOptions,
  type StopResult,
} from '../process/child-process.js';
import { stopChildAndDescendants } from '../process/stop-all.js';

export class RunStop {
  private stopping: Promise<StopResult> | undefined;
  private markRequested: () => void = () => undefined;
  private readonly requested = new Promise<void>((resolve) => (this.markRequested = resolve));

  constructor(
    private readonly child: AgentChild,
    private readonly options: StopOptions,
  ) {}

  /** Starts the stop on the first call; every call gets the same result. */
  readonly stop = (): Promise<StopResult> => {
    this.markRequested();
    return (this.stopping ??= stopChildAndDescendants(this.child, this.options));
  };

  /** Whether anyone asked the run to stop (then it ends as stopped, whatever its exit code). */
  get requestedStop(): boolean {
    return this.stopping !== undefined;
  }

  /** The stop's result, once one was asked for. */
  result(): Promise<StopResult | undefined> {
    return this.stopping ?? Promise.resolve(undefined);
  }

  /**
   * The child's exit, or the stop's result when the child outlived it. Once a stop is under way the wait
   * is bounded by it: a child that survives every kill (taskkill refused, TerminateProcess denied) must
   * not keep the task `working` forever.
   */
  ended(): Promise<ChildExit | StopResult> {
    return Promise.race<ChildExit | StopResult>([
      exited(this.child),
      this.requested
        .then(() => this.stopping!)
        .then<ChildExit | StopResult>((r) => (r.exited ? exited(this.child) : r)),
    ]);
  }
}
