/**
 * Starting agent turns. A turn starts only once what led to it is durable, after the earlier turns of
 * its conversation (agent + contextId), in its agent's shard. It also remembers which conversations
 * already ran in this process, so a multi-turn backend is told a turn is a follow-up.
 */
import { withDecisionContract } from '../domain/decision-contract.js';
import type { Part } from '../domain/task.js';
import type { CarriedVerdict, TaskStore } from '../ports.js';
import type { LiveTask } from './live-task.js';
import type { PermissionDesk } from './permission-desk.js';
import type { AgentEntry } from './registry.js';
import { RecentKeys } from './recent-keys.js';
import { KeyedChain } from './shards.js';
import type { Timers } from './timers.js';
import { runTurn, type TurnPlan } from './turn-runner.js';

/** A turn as the dispatcher plans it, before the decision contract is appended. */
export interface PlannedTurn {
  messageId: string;
  text: string;
  attachments: Part[];
  /** See Turn.cold. */
  cold?: { text: string; attachments: Part[] };
  /** See Turn.reattach. */
  reattach?: string;
  /** See Turn.carried. */
  carried?: CarriedVerdict;
}

export interface TurnSchedulerOptions {
  store: TaskStore;
  desk: PermissionDesk;
  /** A turn ended with a decision for the requester: the task is parked on it. */
  onDecision: (parked: LiveTask) => void;
  /** See TurnPlan.secrets and TurnPlan.redact. */
  secrets?: () => readonly string[];
  redact?: (text: string) => string;
  /** See TurnPlan.timers. */
  timers?: Timers;
  /** How many conversations are remembered as warm (WARM_CONVERSATIONS). */
  warmConversations?: number;
}

/**
 * How many agent+context pairs the scheduler remembers as warm, the most recently used. More than any
 * backend keeps (ACP: 32 sessions per process, http_api: 200 conversations by default, a2a: 500), so a
 * conversation it forgets is one its agent has most likely forgotten too; a forgotten one's next turn is
 * told as a first turn (its cold text), which an agent that still remembers it answers as well.
 */
export const WARM_CONVERSATIONS = 4096;

export class TurnScheduler {
  private readonly conversations = new KeyedChain();
  /** agent+context pairs that already ran a turn in this process: a multiTurn backend may still have them. */
  private readonly warm: RecentKeys;

  constructor(private readonly opts: TurnSchedulerOptions) {
    this.warm = new RecentKeys(opts.warmConversations ?? WARM_CONVERSATIONS);
  }

  /** Whether a turn of this conversation already ran here (the agent may remember it). */
  isWarm(agent: string, contextId: string): boolean {
    return this.warm.has(conversationKey(agent, contextId));
  }

  /**
   * Runs `turn` for `live` on `entry`'s agent. `unreserve` gives back the queue place held since the
   * send was accepted, right before the turn takes its real place in the queue (or when it never will).
   */
  schedule(live: LiveTask, entry: AgentEntry, turn: PlannedTurn, unreserve?: () => void): void {
    // The agent starts only once what led to this turn is durable: killed in between, the bridge would
    // leave work done that no stored task accounts for, and a replayed messageId would run it again.
    this.opts.store.afterCommit((lost) => (lost ? unreserve?.() : this.start(live, entry, turn, unreserve)));
  }

  private start(live: LiveTask, entry: AgentEntry, turn: PlannedTurn, unreserve?: () => void): void {
    const key = conversationKey(entry.name, live.task.contextId);
    const contract = entry.settings.appendDecisionContract;
    const compose = (text: string): string => (contract ? withDecisionContract(text) : text);
    this.conversations.run(key, (done) => {
      const followUp = this.warm.has(key);
      if (!followUp) this.warm.add(key);
      try {
        unreserve?.();
        entry.shard.enqueue((release) => {
          const plan: TurnPlan = {
            live,
            agent: entry,
            messageId: turn.messageId,
            text: compose(turn.text),
            attachments: turn.attachments,
            followUp,
            contractApplied: contract,
            release,
          };
          // Each set only when present: no empty object spread per turn.
          if (turn.cold) plan.cold = { text: compose(turn.cold.text), attachments: turn.cold.attachments };
          if (turn.reattach) plan.reattach = turn.reattach;
          if (turn.carried) plan.carried = turn.carried;
          if (this.opts.secrets) plan.secrets = this.opts.secrets();
          if (this.opts.timers) plan.timers = this.opts.timers;
          if (this.opts.redact) plan.redact = this.opts.redact;
          const running = runTurn(plan, this.opts.desk, this.opts.onDecision);
          // The conversation's next turn waits for the whole of this one, a question parked in it too.
          running.then(done, done);
          return running;
        });
      } catch (err) {
        live.patchMetadata({ retryable: true });
        live.setStatus('failed', (err as Error).message);
        done();
      }
    });
  }
}

function conversationKey(agent: string, contextId: string): string {
  return `${agent}\u0000${contextId}`;
}
