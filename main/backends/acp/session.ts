/**
 * One ACP session, bound to one A2A contextId for the life of the agent's process (or until the
 * connection closes it to make room, see AcpConnection).
 */
import type { TurnContext } from './turn-context.js';
import { TerminalSet } from './terminals.js';
import type { Workspace } from './workspace.js';

export class AcpSession {
  readonly terminals = new TerminalSet();
  /** The turn whose prompt is in flight; updates and requests for this session go to it. */
  turn: TurnContext | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;

  constructor(
    readonly sessionId: string,
    readonly contextId: string,
    readonly workspace: Workspace,
    /** Loaded with `session/load` (an earlier process's session): the agent holds its conversation. */
    readonly reloaded = false,
  ) {}

  /**
   * Runs `work` after every earlier turn of this session has settled. While a turn waits for a
   * permission answer the runtime releases the agent's queue slot, so another message for the same
   * contextId can reach `run` then; without this chain it would put a second `session/prompt` in flight
   * on one session, which ACP does not allow and which would mix both turns' updates.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.queued += 1;
    const run = this.tail.then(work, work).finally(() => (this.queued -= 1));
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** A turn runs or waits on this session: it must not be closed. */
  get busy(): boolean {
    return this.queued > 0;
  }
}
