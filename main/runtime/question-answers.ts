/**
 * Answering a task's question: who may (the authority table, from the answerer's proven identity), then
 * one path per kind — a permission (its agent-side request still waiting, or re-attached after a
 * restart) or a decision (a new turn with the choice). The first answer wins; a refused answer leaves
 * no trace.
 */
import { authorize, identityLabel, type Identity } from '../domain/authority.js';
import { decisionFollowUp, resolveDecisionAnswer } from '../domain/decision-contract.js';
import { BridgeError } from '../domain/errors.js';
import type { DecisionPending, PermissionPending } from '../domain/pending.js';
import { textOf, type Message, type Part, type Task } from '../domain/task.js';
import type { LiveTasks } from './live-tasks.js';
import type { PendingClock } from './pending-clock.js';
import { resolvePermissionAnswer } from './permission-answers.js';
import { pendingLost, type PermissionDesk } from './permission-desk.js';
import { resumePermission } from './permission-resume.js';
import { recordQuestion } from './question-log.js';
import type { AgentEntry, AgentRegistry } from './registry.js';
import type { TurnScheduler } from './turn-scheduler.js';

export interface AnswerDeps {
  live: LiveTasks;
  desk: PermissionDesk;
  clock: PendingClock;
  turns: TurnScheduler;
  registry: AgentRegistry;
}

export interface GivenAnswer {
  answer: string;
  /** Who answers, as their credential proves it; recorded as `answeredBy`. */
  by: Identity;
  /** The A2A message that carried the answer (the standard route), kept in the task's history. */
  message?: Message | undefined;
  freeText?: boolean | undefined;
}

export function answerQuestion(deps: AnswerDeps, current: Task, given: GivenAnswer): Task {
  const { agent, createdBy } = current.metadata;
  authorize('answer a question', given.by, { id: current.id, agent, createdBy });
  const pending = current.metadata.pending;
  if (current.status.state !== 'input-required' || !pending) throw notWaiting(current);
  const entry = deps.registry.get(current.metadata.agent);
  return pending.kind === 'permission'
    ? answerPermission(deps, current, pending, entry, given)
    : answerDecision(deps, current, pending, entry, given);
}

function answerPermission(
  deps: AnswerDeps,
  current: Task,
  pending: PermissionPending,
  entry: AgentEntry,
  given: GivenAnswer,
): Task {
  const live = deps.live.get(current.id);
  const waiting = deps.desk.has(current.id);
  const { reattach } = pending;
  if (!live || (!waiting && !reattach)) throw pendingLost();
  // Resolved once, before anything changes: a refused answer leaves no trace.
  const option = resolvePermissionAnswer(pending.options, given.answer);
  const answeredBy = identityLabel(given.by);
  if (!waiting && reattach) {
    resumePermission(
      live,
      { ...pending, reattach },
      { option, answeredBy, entry, turns: deps.turns, message: given.message },
    );
    deps.clock.clear(current.id);
    return deps.live.view(live);
  }
  if (given.message) live.task.history.push(given.message);
  deps.desk.answer(live, option, answeredBy, entry.settings);
  return deps.live.view(live);
}

function answerDecision(
  deps: AnswerDeps,
  current: Task,
  pending: DecisionPending,
  entry: AgentEntry,
  given: GivenAnswer,
): Task {
  if (given.answer.trim() === '') {
    // Free text is allowed, but an empty choice would send the agent "The requester chose: " and nothing.
    throw new BridgeError(
      'invalid-params',
      `answer is empty; answer with an option's text, its number (1-${pending.options.length}), or free text`,
    );
  }
  const { choice, free } = resolveDecisionAnswer(pending.options, given.answer, { freeText: given.freeText === true });
  // Before anything changes: a full queue refuses the answer (retry later) instead of failing the task.
  const unreserve = entry.shard.reserve();
  const live = deps.live.get(current.id) ?? deps.live.revive(current);
  const answeredBy = identityLabel(given.by);
  if (given.message) live.task.history.push(given.message);
  deps.clock.clear(current.id);
  live.patchMetadata({
    pending: undefined,
    answeredBy,
    lastAnswer: { choice, freeText: free, by: answeredBy, at: new Date().toISOString() },
  });
  const announce = recordQuestion(live, {
    kind: 'decision',
    about: pending.question,
    outcome: 'answered',
    answer: choice,
    by: answeredBy,
  });
  live.setStatus('working');
  announce();
  const warm = entry.backend.traits.multiTurn && deps.turns.isWarm(entry.name, live.task.contextId);
  const decision = { question: pending.question, choice };
  const first = live.task.history[0]?.parts ?? [];
  // The whole request again with the choice: what an agent that no longer holds the conversation needs.
  const cold = { text: decisionFollowUp(decision, textOf(first)), attachments: nonTextParts(first) };
  // The agent is told which A2A message started this turn: the requester's own, when one carried the
  // answer; an id is made up only for answers without one (tasks/answer, the CLI, the desktop app).
  const messageId = given.message?.messageId ?? crypto.randomUUID();
  deps.turns.schedule(
    live,
    entry,
    warm ? { messageId, text: decisionFollowUp(decision), attachments: [], cold } : { messageId, ...cold },
    unreserve,
  );
  return deps.live.view(live);
}

/** Why a task takes no answer now: answered already (by whom, when), or not asking anything. */
function notWaiting(current: Task): BridgeError {
  if (current.metadata.lastAnswer) {
    const last = current.metadata.lastAnswer as { by?: string; at?: string };
    return new BridgeError(
      'already-answered',
      `task ${current.id} was already answered by ${last.by ?? 'someone'} at ${last.at ?? 'an earlier time'}`,
    );
  }
  return new BridgeError(
    'unsupported-operation',
    `task ${current.id} is ${current.status.state}, not waiting for an answer`,
  );
}

export function nonTextParts(parts: readonly Part[]): Part[] {
  return parts.filter((p) => p.kind !== 'text');
}
