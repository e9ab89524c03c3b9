/**
 * Answering a permission whose agent-side request died with the bridge's last run, for an agent that can
 * pick its conversation up again (the question carries the backend's reattach handle): the answer starts
 * a new turn that reattaches to that conversation and tells the agent what was decided for the tool call
 * (allowed: run it; rejected: do not) — the way answered decisions continue. Without a handle the answer
 * stays PendingLost (permission-desk.ts).
 */
import { permissionFollowUp, type PermissionOption, type PermissionPending } from '../domain/pending.js';
import { textOf, type Message } from '../domain/task.js';
import type { LiveTask } from './live-task.js';
import { recordQuestion } from './question-log.js';
import type { AgentEntry } from './registry.js';
import type { TurnScheduler } from './turn-scheduler.js';

export function resumePermission(
  live: LiveTask,
  pending: PermissionPending & { reattach: string },
  a: {
    option: PermissionOption;
    answeredBy: string;
    entry: AgentEntry;
    turns: TurnScheduler;
    message: Message | undefined;
  },
): void {
  const { option } = a;
  // A full queue must leave the question as it was.
  const unreserve = a.entry.shard.reserve();
  if (a.message) live.task.history.push(a.message);
  live.patchMetadata({
    pending: undefined,
    answeredBy: a.answeredBy,
    lastAnswer: {
      requestId: pending.requestId,
      optionId: option.optionId,
      by: a.answeredBy,
      at: new Date().toISOString(),
    },
  });
  const announce = recordQuestion(live, {
    kind: 'permission',
    about: pending.toolCall.title,
    outcome: 'answered',
    answer: option.optionId,
    by: a.answeredBy,
  });
  live.setStatus('working');
  announce();
  const followUp = permissionFollowUp(pending.toolCall, option);
  const first = live.task.history[0]?.parts ?? [];
  a.turns.schedule(
    live,
    a.entry,
    {
      messageId: a.message?.messageId ?? crypto.randomUUID(),
      text: followUp,
      attachments: [],
      // An agent that cannot reload the conversation after all gets the whole request with the verdict.
      cold: { text: `${textOf(first)}\n\n---\n${followUp}`, attachments: first.filter((p) => p.kind !== 'text') },
      reattach: pending.reattach,
      // The agent may re-issue the call it was told about: that one is answered with this verdict.
      carried: { toolCall: pending.toolCall, option },
    },
    unreserve,
  );
}
