import { parseDecision } from '../domain/decision-contract.js';
import { describePending, type DecisionPending } from '../domain/pending.js';
import type { Part } from '../domain/task.js';
import type { CarriedVerdict, TurnOutcome } from '../ports.js';
import type { ArtifactStream } from './artifact-stream.js';
import type { LiveTask } from './live-task.js';
import { workspaceOf, type PermissionDesk } from './permission-desk.js';
import type { AgentEntry } from './registry.js';
import type { Timers } from './timers.js';
import { RunningTurn } from './running-turn.js';

export interface TurnPlan {
  live: LiveTask;
  agent: AgentEntry;
  messageId: string;
  text: string;
  attachments: Part[];
  followUp: boolean;
  /** See Turn.cold. */
  cold?: { text: string; attachments: Part[] };
  /** See Turn.reattach. */
  reattach?: string;
  /** See Turn.carried. */
  carried?: CarriedVerdict;
  /** Whether the decision contract was appended to `text`, so the reply may end with a decision. */
  contractApplied: boolean;
  /** Hands the agent's shard slot back (the task is parked or finished). */
  release: () => void;
  /**
   * The bridge's tokens, removed from the reply text as it streams, across its chunks (domain/redaction.ts
   * SecretFilter); LiveTask removes them from everything else (runtime/scrubber.ts).
   */
  secrets?: readonly string[];
  /** Credentials out of a failure's stderr, applied before it is cut to fit the status. */
  redact?: (text: string) => string;
  /** What the turn's timeout runs on (default: the real clock). */
  timers?: Timers;
}

const STDERR_IN_STATUS = 600;

/**
 * Runs one turn of a task on its agent and settles the task from the outcome. The task may be canceled
 * while this runs; the backend then sees the abort and every later change is refused by the task's
 * transition table, so nothing re-settles a canceled task.
 */
export async function runTurn(
  plan: TurnPlan,
  desk: PermissionDesk,
  onDecision: (live: LiveTask) => void,
): Promise<void> {
  const { live, agent } = plan;
  if (agent.retired === 'removed') {
    // Queued before a config reload took the agent out: it never started, so sending again is safe.
    settleFailure(
      live,
      `agent "${agent.name}" was removed from the config before this task started; send it again to an agent that exists (\`contactor agents\`)`,
      true,
    );
    return plan.release();
  }
  // Checked when the task was accepted, and again now: a symlink swapped in while it waited in the queue
  // (or between turns) must not move it into the bridge's data dir or out of its roots.
  let cwd = live.task.metadata.cwd;
  if (cwd !== undefined && agent.settings.confineCwd) {
    try {
      cwd = agent.settings.confineCwd(cwd);
    } catch (err) {
      settleFailure(
        live,
        `not started: its working directory changed since it was accepted: ${(err as Error).message}`,
        false,
      );
      return plan.release();
    }
  }
  if (!live.setStatus('working')) return plan.release();
  agent.active += 1;
  // One async function per turn (its promise and frame are paid per request): what comes before and
  // after the backend's run is plain calls.
  try {
    const turn = startTurn(plan, desk);
    let outcome: TurnOutcome;
    try {
      outcome = await agent.backend.run(turn.request(cwd), turn);
    } catch (err) {
      outcome = {
        kind: 'failed',
        retryable: false,
        reason: `the ${agent.backend.traits.backend} backend failed: ${(err as Error).message}`,
      };
    } finally {
      turn.stopWatching();
      // A turn can end (or crash) while its permission question is still shown: the agent no longer waits
      // for it, so it is withdrawn and the turn's outcome settles the task.
      desk.withdrawAll(live);
    }
    endTurn(plan, turn, outcome, onDecision);
  } finally {
    agent.active -= 1;
  }
}

function startTurn(plan: TurnPlan, desk: PermissionDesk): RunningTurn {
  const { live } = plan;
  // The latest turn's start and end, for every backend: a reader of a canceled task tells a turn still
  // stopping (started, not ended) from one that had ended or never ran (docs/contract.md#task-metadata).
  const { turnEndedAt: _earlierEnd, ...earlier } = live.task.metadata.receipt ?? {};
  live.patchMetadata({ receipt: { ...earlier, turnStartedAt: new Date().toISOString() } });
  const turn = new RunningTurn(plan, desk);
  turn.timer.start();
  return turn;
}

/** Settles the task from the turn's outcome (its backend returned), then hands the agent's slot back. */
function endTurn(plan: TurnPlan, turn: RunningTurn, outcome: TurnOutcome, onDecision: (live: LiveTask) => void): void {
  const { live, agent } = plan;
  turn.wrapUp();
  if (live.abort.aborted) {
    turn.stream.abandon();
    // When the turn ended (receipt.turnEndedAt), and the backend's receipt of how the cancel ended
    // (receipt.cancel), came after the task turned canceled.
    live.saveLateFacts();
  } else if (turn.timer.timedOut) {
    turn.stream.finish();
    settleFailure(
      live,
      `timed out after ${agent.settings.timeoutMs / 1000}s; the agent was stopped; re-send under a new messageId to try again (the same one returns this failure)`,
      true,
    );
  } else {
    turn.stream.finish();
    settleOutcome(plan, outcome, turn.stream, onDecision, turn.artifactId);
  }
  plan.release();
}

function settleOutcome(
  plan: TurnPlan,
  outcome: TurnOutcome,
  reply: Pick<ArtifactStream, 'text' | 'blank' | 'partCount'>,
  onDecision: (live: LiveTask) => void,
  artifactId: string,
): void {
  const { live } = plan;
  switch (outcome.kind) {
    case 'completed': {
      const decision = plan.contractApplied || outcome.asks ? parseDecision(reply.text) : undefined;
      if (decision) {
        // The reply's text was the question and its block (parseDecision: question = all text before it).
        live.dropReplyText(artifactId);
        const now = Date.now();
        const pending: DecisionPending = {
          kind: 'decision',
          ...decision,
          ...workspaceOf(live, plan.agent.settings),
          createdAt: new Date(now).toISOString(),
          expiresAt: new Date(now + plan.agent.settings.approvalTimeoutMs).toISOString(),
        };
        live.patchMetadata({ pending });
        live.setStatus('input-required', describePending(pending, plan.agent.name), {
          event: 'pending-created',
          pendingKind: 'decision',
        });
        onDecision(live);
        return;
      }
      if (reply.blank && reply.partCount === 0)
        live.patchMetadata({ warning: 'the agent finished without any output' });
      live.setStatus('completed');
      return;
    }
    case 'failed': {
      // Redacted whole, then cut: a cut first could split a key past recognition (a PEM without BEGIN).
      const redact = plan.redact ?? ((text: string) => text);
      const tail = outcome.stderrTail ? stderrInStatus(redact(outcome.stderrTail), plan.agent.name) : '';
      if (outcome.exitCode !== undefined) live.patchMetadata({ exitCode: outcome.exitCode });
      settleFailure(live, outcome.reason + tail, outcome.retryable);
      return;
    }
    case 'undelivered': {
      live.patchMetadata({
        receipt: {
          ...(live.task.metadata.receipt ?? {}),
          delivered: false,
          // Often an agent's own words (its stderr before the handshake): redacted like a status text.
          undeliveredReason: (plan.redact ?? ((text: string) => text))(outcome.reason),
        },
      });
      settleFailure(live, `not delivered: ${outcome.reason}`, outcome.retryable);
      return;
    }
    case 'auth-required': {
      live.setStatus('auth-required', outcome.reason);
      return;
    }
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

/**
 * The end of a failed turn's stderr for its status: whole lines only (the cut never starts mid-line), and
 * where the rest is kept.
 */
function stderrInStatus(stderr: string, agent: string): string {
  let tail = stderr.trimEnd();
  if (tail.length > STDERR_IN_STATUS) {
    tail = tail.slice(-STDERR_IN_STATUS);
    tail = tail.slice(tail.indexOf('\n') + 1);
  }
  return `\nits stderr, last lines (all of it: \`contactor logs ${agent}\`):\n${tail}`;
}

function settleFailure(live: LiveTask, reason: string, retryable: boolean): void {
  live.patchMetadata({ retryable });
  live.setStatus('failed', reason);
}
