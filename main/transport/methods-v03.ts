/**
 * A2A v0.3 methods (`category/action`). The v0.3 wire is the internal model, so results go out as they are.
 * The bridge's own methods, the same in both versions, are in methods-bridge.ts.
 */
import { BridgeError } from '../domain/errors.js';
import { TaskIdParamsSchema, TaskQueryParamsSchema, ResubscribeParamsSchema } from '../schema/a2a.js';
import { streamEventToV03 } from './a2a-v03.js';
import { applyHistoryLength } from './a2a-v1-convert.js';
import { parseParams } from './parse-params.js';
import { RpcError } from './rpc-errors.js';
import { JsonText, type MethodContext, type MethodHandler } from './rpc-types.js';
import { agentLookup, cancelAs, parseSend } from './send-request.js';
import { endsAtSettled, sendStream, subscribeStream } from './task-stream.js';

export function v03Methods(ctx: MethodContext): Record<string, MethodHandler> {
  const { dispatcher } = ctx;
  const lookup = agentLookup(dispatcher);

  const send: MethodHandler = async (params, call) => {
    const { request, historyLength } = parseSend(params, call, lookup);
    const answer = await dispatcher.answerSend(request);
    // The v0.3 result is the task as stored: the store's own text of it, when there is one, is the reply.
    if (answer.storedJson !== undefined && historyLength === undefined) return new JsonText(answer.storedJson);
    return applyHistoryLength(answer.task, historyLength);
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
    'tasks/cancel': (params, call) => cancelAs(dispatcher, parseParams(TaskIdParamsSchema, params).id, call),
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

function pushNotSupported(): never {
  throw new RpcError(
    -32003,
    'push notifications are not supported by this bridge (capabilities.pushNotifications is false); stream or poll instead',
  );
}
