/**
 * The bridge's own methods (tasks/answer, tasks/list, pending/list, config/*, agents/*, activity/*): the same in both
 * protocol versions, beside the v0.3 and v1 method tables.
 */
import { allows, identityLabel, type Identity } from '../domain/authority.js';
import type { Task } from '../domain/task.js';
import { BridgeError } from '../domain/errors.js';
import {
  AgentCardParamsSchema,
  AnswerParamsSchema,
  EmptyParamsSchema,
  ListTasksParamsSchema,
  PendingListParamsSchema,
} from '../schema/rpc.js';
import { ActivitySnapshotParamsSchema, ActivityTaskParamsSchema, ACTIVITY_MAX_ROWS } from '../schema/activity.js';
import { applyHistoryLength } from './a2a-v1-convert.js';
import { parseParams } from './parse-params.js';
import type { ConfigControl, MethodContext, MethodHandler } from './rpc-types.js';

export function bridgeMethods(ctx: MethodContext): Record<string, MethodHandler> {
  const { dispatcher } = ctx;
  const methods: Record<string, MethodHandler> = {
    'tasks/answer': (params, call) => {
      const p = parseParams(AnswerParamsSchema, params);
      return dispatcher.answer(p.taskId, String(p.answer), answerer(call.identity, p.answeredBy), undefined, {
        freeText: p.freeText === true,
      });
    },
    // Only the person's (method-actions.ts, asked by the endpoint before any method runs), as are activity/*.
    'config/status': () => configControl(ctx).status(),
    // The file is watched anyway; this applies an edit now and says what happened (`contactor reload`).
    'config/reload': () => configControl(ctx).reload(),
    'tasks/list': (params, call) => {
      const p = parseParams(ListTasksParamsSchema, params);
      const states = p.states ?? (p.status ? [p.status] : undefined);
      const agent = call.agentFromPath ?? p.agent;
      const page = dispatcher.list({
        ...(p.contextId ? { contextId: p.contextId } : {}),
        ...(agent ? { agent } : {}),
        ...(states ? { states } : {}),
        ...(p.statusTimestampAfter ? { updatedAfter: p.statusTimestampAfter } : {}),
        pageSize: p.pageSize,
        ...(p.pageToken ? { pageToken: p.pageToken } : {}),
        includeArtifacts: p.includeArtifacts,
      });
      return { ...page, tasks: page.tasks.map((t) => applyHistoryLength(t, p.historyLength)), pageSize: p.pageSize };
    },
    'pending/list': (params, call) => {
      const p = parseParams(PendingListParamsSchema, params);
      // Filtered, not refused: a delegating agent's `contactor pending` lists the questions it may answer.
      const visible = (task: Task): boolean =>
        allows('list open questions', call.identity, {
          agent: task.metadata.agent,
          createdBy: task.metadata.createdBy,
        });
      // The person sees all (no task lookups); an agent, the questions of the tasks it created, chosen by
      // the store before the latest `history` are taken, then checked by the table like the open ones.
      const { identity } = call;
      const history = p.history
        ? identity.kind === 'person'
          ? dispatcher.questionHistory(p.history)
          : dispatcher.questionHistory(p.history, identity.agent).filter((q) => visible(dispatcher.get(q.taskId)))
        : undefined;
      return { tasks: dispatcher.pending().filter(visible), ...(history ? { history } : {}) };
    },
    // The activity view (docs/contract.md#activity): every task, bridge-wide, so the person's only, like GET /events.
    'activity/snapshot': (params) => {
      const { limit } = parseParams(ActivitySnapshotParamsSchema, params);
      return activity(ctx).snapshot(limit);
    },
    'activity/task': (params) => {
      const { taskId } = parseParams(ActivityTaskParamsSchema, params);
      return activity(ctx).detail(taskId, ACTIVITY_MAX_ROWS);
    },
    'agents/list': (params) => {
      parseParams(EmptyParamsSchema, params);
      return { agents: ctx.cards.listAgents() };
    },
    'agents/card': (params) => {
      const { agent } = parseParams(AgentCardParamsSchema, params);
      dispatcher.registry.get(agent);
      return ctx.cards.agentCard(agent);
    },
  };
  // DuDuClaw-style aliases, for pipelines written against it.
  methods['agent/discover'] = methods['agents/list']!;
  return methods;
}

/**
 * Who answers: the identity the token proved, never a parameter. The person may add a name for the
 * record (`contactor answer --by`), kept beside the proof ("person (token: Ana)"); from an agent's token
 * `answeredBy` is refused, since the record is that agent whatever it says.
 */
function answerer(identity: Identity, answeredBy: string | undefined): Identity {
  if (answeredBy === undefined) return identity;
  if (identity.kind === 'person') return { kind: 'person', via: `${identity.via}: ${answeredBy}` };
  throw new BridgeError(
    'unauthorized',
    `answeredBy is not accepted from an agent's token: the bridge records who answered from the token (${identityLabel(identity)}); leave answeredBy out`,
    { identity: identityLabel(identity) },
  );
}

function activity(ctx: MethodContext): NonNullable<MethodContext['activity']> {
  if (!ctx.activity)
    throw new BridgeError('unsupported-operation', 'this bridge was started without the activity view');
  return ctx.activity;
}

function configControl(ctx: MethodContext): ConfigControl {
  if (!ctx.config) throw new BridgeError('unsupported-operation', 'this bridge was started without a config file');
  return ctx.config;
}
