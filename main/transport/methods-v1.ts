/**
 * A2A v1.0 methods (PascalCase, ProtoJSON). Params are converted to the internal shape at this edge and
 * results back, so the runtime never sees a v1 shape.
 */
import { BridgeError } from '../domain/errors.js';
import {
  CancelTaskRequestV1Schema,
  GetTaskRequestV1Schema,
  ListTasksRequestV1Schema,
  SendMessageRequestV1Schema,
  SubscribeToTaskRequestV1Schema,
} from '../schema/a2a-v1.js';
import {
  applyHistoryLength,
  getTaskResultToV1,
  listQueryFromV1,
  listTasksResultToV1,
  sendMessageResultToV1,
  sendRequestFromV1,
  streamEventToV1,
} from '../schema/a2a-v1-convert.js';
import { parseParams } from './parse-params.js';
import { RpcError } from './rpc-errors.js';
import type { MethodContext, MethodHandler, RpcCall } from './rpc-types.js';
import { agentLookup, fromStandard } from './send-request.js';
import { sendStream, subscribeStream } from './task-stream.js';

export function v1Methods(ctx: MethodContext): Record<string, MethodHandler> {
  const { dispatcher } = ctx;
  const lookup = agentLookup(dispatcher);
  const parseSend = (params: unknown, call: RpcCall) =>
    fromStandard(sendRequestFromV1(parseParams(SendMessageRequestV1Schema, params)), call, lookup);

  return {
    SendMessage: async (params, call) => {
      const { request, historyLength } = parseSend(params, call);
      return sendMessageResultToV1(applyHistoryLength(await dispatcher.send(request), historyLength));
    },
    SendStreamingMessage: async (params, call) => {
      const { request } = parseSend(params, call);
      return sendStream(dispatcher, request, streamEventToV1);
    },
    GetTask: (params) => {
      const p = parseParams(GetTaskRequestV1Schema, params);
      return getTaskResultToV1(applyHistoryLength(dispatcher.get(p.id), p.historyLength));
    },
    ListTasks: (params, call) => {
      const p = parseParams(ListTasksRequestV1Schema, params);
      const page = dispatcher.list({
        ...listQueryFromV1(p),
        ...(call.agentFromPath ? { agent: call.agentFromPath } : {}),
      });
      return listTasksResultToV1(page, p);
    },
    CancelTask: async (params) =>
      getTaskResultToV1(await dispatcher.cancel(parseParams(CancelTaskRequestV1Schema, params).id)),
    SubscribeToTask: (params, call) => {
      const p = parseParams(SubscribeToTaskRequestV1Schema, params);
      return subscribeStream(dispatcher, p.id, {
        afterSeq: p.metadata?.afterSeq ?? call.resumeAfter,
        convert: streamEventToV1,
      });
    },
    GetExtendedAgentCard: () => {
      throw new BridgeError(
        'unsupported-operation',
        'this bridge offers no extended agent card (capabilities.extendedAgentCard is false)',
      );
    },
    CreateTaskPushNotificationConfig: pushNotSupported,
    GetTaskPushNotificationConfig: pushNotSupported,
    ListTaskPushNotificationConfigs: pushNotSupported,
    DeleteTaskPushNotificationConfig: pushNotSupported,
  };
}

function pushNotSupported(): never {
  throw new RpcError(
    -32003,
    'push notifications are not supported (capabilities.pushNotifications is false); stream or poll instead',
  );
}
