/**
 * One turn's view of the remote task, built from whatever the peer sends (stream events, a send's
 * result, a GetTask snapshot after a resubscribe). Text is reported once: each artifact's text seen so
 * far is remembered, so a snapshot that repeats it only adds what is new.
 */
import { DECISION_MARKER } from '../../domain/decision-contract.js';
import { isSettled, isInterrupted, textOf, type Artifact, type Message } from '../../domain/task.js';
import type { WireTaskState } from '../../schema/a2a.js';
import type { TurnReporter } from '../../ports.js';
import type { PeerEvent, PeerTaskView } from './client.js';

export class PeerReply {
  taskId: string | undefined;
  contextId: string | undefined;
  state: WireTaskState = 'submitted';
  statusMessage: Message | undefined;
  metadata: Record<string, unknown> = {};
  /** A direct Message reply: the peer answered without making a task. */
  direct: Message | undefined;
  /** Per artifact: the text reported, and the text as the peer's updates so far make it. */
  private readonly seen = new Map<string, string>();
  private readonly current = new Map<string, string>();
  /** Per artifact: non-text parts passed on, and how many the peer's updates so far hold. */
  private readonly partsSeen = new Map<string, number>();
  private readonly partsCurrent = new Map<string, number>();
  private reported = false;
  /** Everything this turn reported, in order. */
  text = '';
  /**
   * Set while continuing a parked task: until the peer shows a new status, the parked one it repeats
   * (a stream's first Task, an early poll) is stale and must not end the turn.
   */
  private parkedStatus: string | undefined | null = null;

  constructor(private readonly report: TurnReporter) {}

  /** The remote task needs nothing more from this turn: terminal, parked, or answered directly. */
  get settled(): boolean {
    return this.direct !== undefined || (this.parkedStatus === null && ends(this.state));
  }

  /**
   * Before continuing a parked task: what it already produced is not this turn's text, and its parked
   * status is not this turn's answer.
   */
  resumeFrom(task: PeerTaskView): void {
    for (const artifact of task.artifacts) {
      this.seen.set(artifact.artifactId, textOf(artifact.parts));
      this.current.set(artifact.artifactId, textOf(artifact.parts));
      const others = artifact.parts.filter((p) => p.kind !== 'text').length;
      this.partsSeen.set(artifact.artifactId, others);
      this.partsCurrent.set(artifact.artifactId, others);
    }
    this.parkedStatus = task.statusKey;
  }

  /** Whether this turn reported any artifact text. */
  get anyText(): boolean {
    return this.reported;
  }

  apply(event: PeerEvent): void {
    switch (event.kind) {
      case 'task':
        this.snapshot(event.task);
        return;
      case 'message':
        this.direct = event.message;
        this.contextId ??= event.message.contextId;
        return;
      case 'status':
        this.parkedStatus = null;
        this.identify(event.taskId, event.contextId);
        this.setState(event.state, event.message);
        return;
      case 'artifact':
        this.identify(event.taskId, event.contextId);
        this.artifact(event.artifact, event.append);
        return;
      default: {
        const never: never = event;
        return never;
      }
    }
  }

  snapshot(task: PeerTaskView): void {
    if (this.parkedStatus !== null && !(parkedState(task.state) && task.statusKey === this.parkedStatus)) {
      this.parkedStatus = null;
    }
    this.identify(task.id, task.contextId);
    this.metadata = task.metadata;
    for (const artifact of task.artifacts) this.artifact(artifact, false);
    this.setState(task.state, task.statusMessage);
  }

  /** The text of the peer's last status message (its answer, question or failure reason). */
  get statusText(): string {
    return this.statusMessage ? textOf(this.statusMessage.parts).trim() : '';
  }

  private identify(taskId: string, contextId: string): void {
    if (taskId && this.taskId === undefined) {
      this.taskId = taskId;
      this.report.receipt({ peerTaskId: taskId });
    }
    if (contextId) this.contextId = contextId;
  }

  private setState(state: WireTaskState, message: Message | undefined): void {
    if (message) this.statusMessage = message;
    if (state !== this.state) {
      this.state = state;
      this.report.receipt({ peerState: state });
      this.report.progress({ kind: 'peer-state', text: `remote task ${state}` });
    }
    const note = message ? textOf(message.parts).trim() : '';
    if (note && !ends(state)) this.report.progress({ kind: 'peer-status', text: note });
  }

  /**
   * `current` is the artifact as the peer has it after this update; `shown` what was already reported.
   * Only text beyond `shown` is reported, so a snapshot, a resent chunk, or a peer replaying a parked
   * task's old events adds nothing twice; a real replacement is reported on a new line.
   */
  private artifact(artifact: Artifact, append: boolean): void {
    const text = textOf(artifact.parts);
    const id = artifact.artifactId;
    const current = append ? (this.current.get(id) ?? '') + text : text;
    const shown = this.seen.get(id) ?? '';
    this.current.set(id, current);
    if (current.startsWith(shown)) {
      const added = current.slice(shown.length);
      this.seen.set(id, current);
      if (added) this.say(added);
    } else if (!shown.startsWith(current)) {
      this.seen.set(id, current);
      this.say(`\n${current}`);
    }
    this.passOn(artifact, append);
  }

  /**
   * The peer's files and data go to the requester unchanged, each once: counted per artifact like the
   * text, so a snapshot repeating them adds nothing.
   */
  private passOn(artifact: Artifact, append: boolean): void {
    const others = artifact.parts.filter((p) => p.kind !== 'text');
    const id = artifact.artifactId;
    const before = append ? (this.partsCurrent.get(id) ?? 0) : 0;
    const shown = this.partsSeen.get(id) ?? 0;
    this.partsCurrent.set(id, before + others.length);
    others.forEach((part, i) => {
      if (before + i < shown) return;
      this.report.content(part);
    });
    this.partsSeen.set(id, Math.max(shown, before + others.length));
  }

  private say(text: string): void {
    this.reported = true;
    this.text += text;
    this.report.text(text);
  }
}

function parkedState(state: WireTaskState): boolean {
  return state !== 'unknown' && isInterrupted(state);
}

/** Terminal or interrupted; the wire-only `unknown` state is neither. */
function ends(state: WireTaskState): boolean {
  return state !== 'unknown' && isSettled(state);
}

/**
 * A contactor peer parked on a decision carries it in `metadata.pending`; rendering it as the decision
 * block lets our runtime park our task on the same question (options, recommend, reason intact).
 */
export function decisionBlockOf(metadata: Record<string, unknown>): { text: string; options: string[] } | undefined {
  const pending = metadata.pending as
    { kind?: unknown; question?: unknown; options?: unknown; recommend?: unknown; reason?: unknown } | undefined;
  if (!pending || pending.kind !== 'decision') return undefined;
  const { question, options, recommend, reason } = pending;
  if (typeof question !== 'string' || typeof recommend !== 'string' || typeof reason !== 'string') return undefined;
  if (!Array.isArray(options) || !options.every((o): o is string => typeof o === 'string')) return undefined;
  const lines = [
    question,
    '',
    DECISION_MARKER,
    ...options.map((o) => `- ${o}`),
    `RECOMMEND: ${recommend}`,
    `REASON: ${reason}`,
  ];
  return { text: lines.join('\n'), options };
}
