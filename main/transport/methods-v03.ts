/**
 * A2A v0.3 methods (`category/action`) and the bridge's extensions. The v0.3 wire is the internal model,
 * so results go out as they are.
 */
import { BridgeError } from '../domain/errors.js';
import { TaskIdParamsSchema, TaskQueryParamsSchema, ResubscribeParamsSchema } from '../schema/a2a.js';
import {
  AgentCardParamsSchema,
  AnswerParamsSchema,
  EmptyParamsSchema,
  ListTasksParamsSchema,
  PendingListParamsSchema,
} from '../schema/rpc.js';
import { streamEventToV03 } from './a2a-v03.js';
import { applyHistoryLength } from '../schema/a2a-v1-convert.js';
import { parseParams } from './parse-params.js';
import { RpcError } from './rpc-errors.js';
import type { ConfigControl, MethodContext, MethodHandler } from './rpc-types.js';
import { agentLookup, parseSend } from './send-request.js';
import { endsAtSettled, sendStream, subscribeStream } from './task-stream.js';

export function v03Methods(ctx: MethodContext): Record<string, MethodHandler> {
  const { dispatcher } = ctx;
  const lookup = agentLookup(dispatcher);

  const send: MethodHandler = async (params, call) => {
    const { request, historyLength } = parseSend(params, call, lookup);
    return applyHistoryLength(await dispatcher.send(request), historyLength);
  };
  const stream: MethodHandler = async (params, call) => {
    const { request } = parseSend(params, call, lookup);
    // v0.3 TaskStatusUpdateEvent.final (§7.2.2, a2a.json): "If true, this is the final event in the stream
    // for this interaction", and §9.3: "Server closes the SSE connection after the `final:true` event";
    // the bridge sets `final` on terminal and interrupted states.
    return sendStream(dispatcher, request, { convert: streamEventToV03, endsAt: endsAtSettled });
  };

  return {
    'message/send': send,
    'message/stream': stream,
    'tasks/get': (params) => {
      const p = parseParams(TaskQueryParamsSchema, params);
      return applyHistoryLength(dispatcher.get(p.id), p.historyLength);
    },
    'tasks/cancel': (params) => dispatcher.cancel(parseParams(TaskIdParamsSchema, params).id),
    'tasks/resubscribe': (params, call) => {
      const p = parseParams(ResubscribeParamsSchema, params);
      // Same rule as message/stream (§7.9 streams the same SendStreamingMessageResponse events): it ends
      // after the `final: true` event, or at once when the snapshot shows the interaction already over.
      return subscribeStream(dispatcher, p.id, {
        afterSeq: p.metadata?.afterSeq ?? call.resumeAfter,
        convert: streamEventToV03,
        endsAt: endsAtSettled,
      });
    },
    'tasks/pushNotificationConfig/set': pushNotSupported,
    'tasks/pushNotificationConfig/get': pushNotSupported,
    'tasks/pushNotificationConfig/list': pushNotSupported,
    'tasks/pushNotificationConfig/delete': pushNotSupported,
    'agent/getAuthenticatedExtendedCard': () => {
      throw new BridgeError('unsupported-operation', 'this bridge offers no extended agent card');
    },
  };
}

/** The bridge's own methods; the same in both protocol versions. */
export function bridgeMethods(ctx: MethodContext): Record<string, MethodHandler> {
  const { dispatcher } = ctx;
  const methods: Record<string, MethodHandler> = {
    'tasks/answer': (params) => {
      const p = parseParams(AnswerParamsSchema, params);
      return dispatcher.answer(p.taskId, String(p.answer), p.answeredBy ?? 'caller', undefined, {
        freeText: p.freeText === true,
      });
    },
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
    'pending/list': (params) => {
      const p = parseParams(PendingListParamsSchema, params);
      return { tasks: dispatcher.pending(), ...(p.history ? { history: dispatcher.questionHistory(p.history) } : {}) };
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

function pushNotSupported(): never {
  throw new RpcError(
    -32003,
    'push notifications are not supported by this bridge (capabilities.pushNotifications is false); stream or poll instead',
  );
}

function configControl(ctx: MethodContext): ConfigControl {
  if (!ctx.config) throw new BridgeError('unsupported-operation', 'this bridge was started without a config file');
  return ctx.config;
}
