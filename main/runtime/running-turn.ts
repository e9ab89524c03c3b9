import type { Part } from '../domain/task.js';
import type { PermissionOutcome, PermissionRequest, Turn, TurnReporter } from '../ports.js';
import { ArtifactBudget, DEFAULT_MAX_ARTIFACT_BYTES, partBytes } from './artifact-budget.js';
import { ArtifactStream, type ArtifactChunk } from './artifact-stream.js';
import { LazyAbort } from './lazy-abort.js';
import type { LiveTask } from './live-task.js';
import type { PermissionDesk } from './permission-desk.js';
import { checkedPart, droppedNote } from './reply-parts.js';
import type { TurnPlan } from './turn-runner.js';
import { TurnTimer } from './turn-timer.js';
import { removeSecrets, SecretFilter } from '../domain/redaction.js';

const NO_SECRETS: readonly string[] = [];

/**
 * One started turn of a task: its abort, timer, reply stream and caps, and the reporter its backend
 * talks to. One object whose methods are the reporter (TurnReporter), not an object of closures made per
 * turn: a blocking send runs one turn, and what a turn allocates is paid per request
 * (docs/benchmark.md#round-6-the-turn-and-the-commit).
 *
 * The turn stops when its task is aborted or its time is up; the signal is made only if the backend
 * reads it (LazyAbort).
 */
export class RunningTurn implements TurnReporter {
  readonly abort = new LazyAbort();
  readonly timer: TurnTimer;
  readonly stream: ArtifactStream;
  readonly budget: ArtifactBudget;
  /** One artifact per turn: a follow-up's reply never rewrites what an earlier turn produced. */
  readonly artifactId: string;
  /** When the first reply output arrived (receipt.firstOutputAt). */
  private firstOutputAt: string | undefined;
  /** What the backend itself cut from its output (TurnReporter.truncated), added up over the turn. */
  private backendCut: { at: number; droppedBytes: number } | undefined;
  private readonly tokens: SecretFilter;
  /**
   * Thoughts stream in pieces like the reply (ACP agent_thought_chunk): a token split across two pieces
   * is whole to nobody downstream, so their text passes a filter of its own, made at the first thought.
   */
  private thoughts: SecretFilter | undefined;
  private readonly live: LiveTask;
  private readonly secrets: readonly string[];
  /** Stops the turn: the task's abort hook and the timer's expiry (one function for both). */
  private readonly stop = (): void => this.abort.abort();
  private readonly unfollow: () => void;

  constructor(
    private readonly plan: TurnPlan,
    private readonly desk: PermissionDesk,
  ) {
    const { live, agent } = plan;
    this.live = live;
    this.secrets = plan.secrets ?? NO_SECRETS;
    this.unfollow = live.abort.onAbort(this.stop);
    this.timer = new TurnTimer(agent.settings.timeoutMs, this.stop, plan.timers);
    const turnNumber = live.task.artifacts.length + 1;
    this.artifactId = turnNumber === 1 ? `${live.id}-reply` : `${live.id}-reply-${turnNumber}`;
    this.stream = new ArtifactStream((chunk: ArtifactChunk) => live.appendArtifact(chunk, this.artifactId));
    this.tokens = new SecretFilter(this.secrets);
    this.budget = new ArtifactBudget(agent.settings.maxArtifactBytes ?? DEFAULT_MAX_ARTIFACT_BYTES, live.task);
  }

  /** What the backend is asked to run. */
  request(cwd: string | undefined): Turn {
    return new BackendTurn(this.plan, cwd, this.abort);
  }

  text(chunk: string): void {
    this.firstOutputAt ??= new Date().toISOString();
    // Filtered, then capped: a cut first could keep a token's first characters, which the filter
    // holds back as a possible start and passes on at the end as plain text.
    this.stream.push(this.budget.take(this.tokens.push(chunk)));
  }

  content(reported: Part): void {
    this.firstOutputAt ??= new Date().toISOString();
    // Text the token filter held back goes first (the agent's order); LiveTask takes tokens out of the part.
    this.stream.push(this.budget.take(this.tokens.end()));
    let kept = checkedPart(reported);
    if (kept.kind !== 'text') {
      const bytes = partBytes(kept);
      if (!this.budget.admit(bytes)) {
        kept = droppedNote(
          reported,
          `${bytes} bytes would pass the task's ${this.budget.maxBytesPerTask}-byte artifact cap`,
        );
      }
    }
    if (kept.kind === 'text') {
      // Tokens out before the cut, as for streamed text: a cut token is no longer recognised later.
      const text = this.budget.take(removeSecrets(kept.text, this.secrets));
      if (text === '') return;
      kept = { ...kept, text };
    }
    this.stream.pushPart(kept);
  }

  progress(note: { kind: string; text: string; data?: unknown }): void {
    if (note.kind === 'thought') {
      this.thoughts ??= new SecretFilter(this.secrets);
      const text = this.thoughts.push(note.text);
      if (text !== '') this.live.announce({ event: 'progress', progress: { ...note, text } });
      return;
    }
    this.endThought();
    this.live.announce({ event: 'progress', progress: note });
  }

  receipt(facts: Record<string, unknown>): void {
    const live = this.live;
    const before = live.task.metadata.receipt;
    live.patchMetadata({ receipt: { ...(before ?? {}), ...facts } });
    // A restart after a crash stops the agent by its pid and start (recorded-agents.ts): stored now,
    // unless the task already holds this very process (an ACP agent kept across its turns).
    const after = live.task.metadata.receipt;
    if ('pidStart' in facts && (after?.pidStart !== before?.pidStart || after?.pid !== before?.pid)) {
      live.saveSnapshot();
    }
  }

  truncated(cut: { at: number; droppedBytes: number }): void {
    this.backendCut = { at: cut.at, droppedBytes: (this.backendCut?.droppedBytes ?? 0) + cut.droppedBytes };
  }

  askPermission(request: PermissionRequest): Promise<PermissionOutcome> {
    return this.desk.ask(this.live, request, this.plan.agent.settings, {
      onPark: () => {
        this.timer.pause();
        this.plan.release();
      },
      onResume: () => this.timer.resume(),
    });
  }

  /** The backend returned (or threw): the timer and the task's abort no longer concern this turn. */
  stopWatching(): void {
    this.timer.stop();
    this.unfollow();
  }

  /**
   * What the turn leaves in the task once its backend returned: the last thought's rest, the receipt's
   * first output and end, what the token filter still holds, and the cut when anything was dropped.
   */
  wrapUp(): void {
    const live = this.live;
    this.endThought();
    // The backend returned: the agent no longer works on this turn (for a canceled one, it has stopped).
    const turnEndedAt = new Date().toISOString();
    this.receipt(this.firstOutputAt ? { firstOutputAt: this.firstOutputAt, turnEndedAt } : { turnEndedAt });
    // What the token filter still holds counts against the cap like the rest, before the cut is recorded.
    this.stream.push(this.budget.take(this.tokens.end()));
    const backendCut = this.backendCut;
    if (this.budget.droppedBytes > 0 || backendCut) {
      const cut = this.budget.truncation(live.task.metadata.truncated);
      // The backend's own cap came first: the reply is cut where it stopped, and both drops count.
      live.patchMetadata({
        truncated: backendCut
          ? { at: Math.min(cut.at, backendCut.at), droppedBytes: cut.droppedBytes + backendCut.droppedBytes }
          : cut,
      });
    }
  }

  private endThought(): void {
    const rest = this.thoughts?.end() ?? '';
    if (rest !== '') this.live.announce({ event: 'progress', progress: { kind: 'thought', text: rest } });
  }
}

/** The Turn a backend runs: the plan's facts, and the turn's signal made only when read. */
class BackendTurn implements Turn {
  readonly taskId: string;
  readonly contextId: string;
  readonly messageId: string;
  readonly agent: string;
  readonly text: string;
  readonly attachments: Part[];
  readonly delegationDepth: number;
  readonly visitedAgents: string[];
  readonly followUp: boolean;
  // Declared, not defined: an absent one must not be an own property (`'cold' in turn`).
  declare cold?: Turn['cold'];
  declare reattach?: string;
  declare carried?: Turn['carried'];
  declare cwd?: string;

  constructor(
    plan: TurnPlan,
    cwd: string | undefined,
    private readonly abort: LazyAbort,
  ) {
    const { live } = plan;
    this.taskId = live.id;
    this.contextId = live.task.contextId;
    this.messageId = plan.messageId;
    this.agent = plan.agent.name;
    this.text = plan.text;
    this.attachments = plan.attachments;
    this.delegationDepth = live.task.metadata.delegationDepth;
    this.visitedAgents = live.task.metadata.visitedAgents;
    this.followUp = plan.followUp;
    // Set only when present: backends test these with `in` and `?.`.
    if (plan.cold) this.cold = plan.cold;
    if (plan.reattach) this.reattach = plan.reattach;
    if (plan.carried) this.carried = plan.carried;
    if (cwd) this.cwd = cwd;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }
}
