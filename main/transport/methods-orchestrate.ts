/**
 * `agents/orchestrate`: fan-out, one task per chosen agent, each a normal task (queued, guarded,
 * idempotent, cancelable like any other) whose first message carries `metadata.orchestration = {id,
 * mode}`. There is no parent task: the orchestration id ties the children together.
 *
 * Modes: `all` waits for every child and returns the results side by side; `first` returns when one
 * child completes and cancels the rest; `best` is `all` — the bridge does not judge content (a
 * `completed` task means "finished", never "correct"), so the caller applies its own rubric to the
 * results. A child parked on a question counts as settled for now: it is returned with its question.
 */
import { PERSON_BY_TOKEN, type Identity } from '../domain/authority.js';
import { BridgeError, isBridgeError } from '../domain/errors.js';
import type { StreamEvent } from '../domain/events.js';
import { isSettled, isTerminal, textOf, type Task, type TaskState } from '../domain/task.js';
import type { Dispatcher } from '../runtime/dispatcher.js';
import type { AgentRegistry } from '../runtime/registry.js';
import { OrchestrateParamsSchema, type OrchestrateParams } from '../schema/rpc.js';
import { parseParams } from './parse-params.js';
import type { MethodContext, MethodHandler } from './rpc-types.js';
import { callerOf, delegationOf, optional } from './send-request.js';

export interface OrchestrationResult {
  agent: string;
  /** Absent when the child could not even be queued (see `error`). */
  taskId?: string;
  state: TaskState;
  /** The reply (artifact text), else the status message. */
  text: string;
  /** When not completed: the status message (the failure reason, the question, the rejection). */
  reason?: string;
  retryable?: boolean;
  error?: string;
}

export interface Orchestration {
  orchestrationId: string;
  mode: OrchestrateParams['mode'];
  /** `first`: the agent whose task completed first, if any did. */
  winner?: string;
  results: OrchestrationResult[];
  note?: string;
}

const BEST_NOTE =
  'the bridge does not judge content: compare the results with your own rubric (every task carries requiresReview)';

export function orchestrateMethods(ctx: MethodContext): Record<string, MethodHandler> {
  return {
    'agents/orchestrate': (params, call) => {
      const p = parseParams(OrchestrateParamsSchema, params);
      return orchestrate(
        ctx.dispatcher,
        { ...p, ...optional('callerAgent', callerOf(call, p.callerAgent)) },
        call.identity,
      );
    },
  };
}

/** `by`: who asks, as the token proves it; every child records it as its creator. */
export async function orchestrate(
  dispatcher: Dispatcher,
  p: OrchestrateParams,
  by: Identity = PERSON_BY_TOKEN,
): Promise<Orchestration> {
  const agents = chooseAgents(dispatcher.registry, p);
  const orchestrationId = p.messageId ?? crypto.randomUUID();
  const children = await Promise.all(agents.map((agent) => sendChild(dispatcher, agent, orchestrationId, p, by)));
  const running = children.filter((c): c is { agent: string; task: Task } => c.task !== undefined);

  let winner: string | undefined;
  if (p.blocking) {
    const watches = running.map((c) => watch(dispatcher, c.task.id).then((state) => ({ agent: c.agent, state })));
    if (p.mode === 'first') {
      const firstDone = new Promise<string | undefined>((resolve) => {
        for (const w of watches) void w.then((r) => r.state === 'completed' && resolve(r.agent));
        void Promise.all(watches).then(() => resolve(undefined));
      });
      winner = await firstDone;
      if (winner !== undefined) await cancelOthers(dispatcher, running, winner);
    } else {
      await Promise.all(watches);
    }
  }
  const results = children.map((c) => (c.task ? resultOf(c.agent, dispatcher.get(c.task.id)) : c.failure!));
  return {
    orchestrationId,
    mode: p.mode,
    ...(winner !== undefined ? { winner } : {}),
    results,
    ...(p.mode === 'best' ? { note: BEST_NOTE } : {}),
  };
}

/** Named agents must all exist; a capability must match at least one agent. */
function chooseAgents(registry: AgentRegistry, p: OrchestrateParams): string[] {
  if (p.agents) {
    for (const name of p.agents) registry.get(name);
    return [...new Set(p.agents)];
  }
  const wanted = p.capability!.toLowerCase();
  const matching = registry
    .all()
    .filter((e) =>
      [e.backend.traits.backend, ...e.settings.tags, ...e.settings.skills.flatMap((s) => s.tags)].some(
        (t) => t.toLowerCase() === wanted,
      ),
    )
    .map((e) => e.name);
  if (matching.length === 0) {
    const known = registry.all().map((e) => `${e.name} (${[e.backend.traits.backend, ...e.settings.tags].join(', ')})`);
    throw new BridgeError(
      'invalid-params',
      `no agent matches capability "${p.capability}"; agents and their tags: ${known.join('; ') || '(none configured)'}`,
    );
  }
  return matching;
}

async function sendChild(
  dispatcher: Dispatcher,
  agent: string,
  orchestrationId: string,
  p: OrchestrateParams,
  by: Identity,
): Promise<{ agent: string; task?: Task; failure?: OrchestrationResult }> {
  try {
    const task = await dispatcher.send({
      agent,
      message: {
        kind: 'message',
        // Ids are unique per target agent, so one messageId makes every child idempotent.
        messageId: p.messageId ?? crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text: p.text }],
        ...(p.contextId ? { contextId: p.contextId } : {}),
        metadata: { orchestration: { id: orchestrationId, mode: p.mode } },
      },
      idempotent: p.messageId !== undefined,
      blocking: false,
      delegation: delegationOf(p),
      by,
    });
    return { agent, task };
  } catch (err) {
    // A full queue (or a conflicting messageId) refuses one child, not the fan-out.
    if (!isBridgeError(err)) throw err;
    return { agent, failure: { agent, state: 'failed', text: err.message, error: err.reason } };
  }
}

/** Resolves with the state once the task is terminal or parked on a question. */
function watch(dispatcher: Dispatcher, taskId: string): Promise<TaskState> {
  return new Promise((resolve) => {
    let settled: TaskState | undefined;
    const listener = (event: StreamEvent): void => {
      const state =
        event.kind === 'task'
          ? event.task.status.state
          : event.kind === 'status-update'
            ? event.status.state
            : undefined;
      if (settled !== undefined || state === undefined || !isSettled(state)) return;
      settled = state;
      resolve(state);
    };
    // The first event (the task as it is now) is delivered during subscribe, before it returns.
    const subscription = dispatcher.subscribe(taskId, undefined, (event) => {
      listener(event);
      if (settled !== undefined) queueMicrotask(() => subscription.unsubscribe());
    });
    if (settled !== undefined) subscription.unsubscribe();
  });
}

async function cancelOthers(
  dispatcher: Dispatcher,
  running: { agent: string; task: Task }[],
  winner: string,
): Promise<void> {
  for (const child of running) {
    if (child.agent === winner || isTerminal(dispatcher.get(child.task.id).status.state)) continue;
    await dispatcher.cancel(child.task.id).catch(() => undefined);
  }
}

function resultOf(agent: string, task: Task): OrchestrationResult {
  const reply = task.artifacts.map((a) => textOf(a.parts)).join('\n');
  const said = task.status.message ? textOf(task.status.message.parts) : '';
  return {
    agent,
    taskId: task.id,
    state: task.status.state,
    text: reply.trim() ? reply : said,
    ...(task.status.state !== 'completed' && said ? { reason: said } : {}),
    ...(typeof task.metadata.retryable === 'boolean' ? { retryable: task.metadata.retryable } : {}),
  };
}
