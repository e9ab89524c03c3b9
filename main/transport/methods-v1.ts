/**
 * A2A v1.0 methods (PascalCase, ProtoJSON). Params are converted to the internal shape at this edge and
 * results back, so the runtime never sees a v1 shape.
 */
import type { z } from 'zod';
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
} from './a2a-v1-convert.js';
import { DuplicateFieldError, withJsonNames } from '../schema/proto-json-names.js';
import { parseParams } from './parse-params.js';
import { RpcError } from './rpc-errors.js';
import type { MethodContext, MethodHandler, RpcCall } from './rpc-types.js';
import { agentLookup, cancelAs, fromStandard } from './send-request.js';
import { endsAtSettled, endsAtTerminal, sendStream, subscribeStream } from './task-stream.js';

export function v1Methods(ctx: MethodContext): Record<string, MethodHandler> {
  const { dispatcher } = ctx;
  const lookup = agentLookup(dispatcher);
  const parseSend = (params: unknown, call: RpcCall) =>
    fromStandard(sendRequestFromV1(parseV1Params(SendMessageRequestV1Schema, params)), call, lookup);

  return {
    SendMessage: async (params, call) => {
      const { request, historyLength } = parseSend(params, call);
      return sendMessageResultToV1(applyHistoryLength(await dispatcher.send(request), historyLength));
    },
    SendStreamingMessage: async (params, call) => {
      const { request } = parseSend(params, call);
      // v1 §3.1.2: "The stream MUST close when the task reaches a terminal state"; the binding's words
      // (§11.7): "status or artifact update events until the task reaches a terminal or interrupted state,
      // at which point the stream closes". Both hold when it closes at either, as the reference SDK does:
      // a client's stream loop then returns with the question, and it answers with a new message.
      return sendStream(dispatcher, request, { convert: streamEventToV1, endsAt: endsAtSettled });
    },
    GetTask: (params) => {
      const p = parseV1Params(GetTaskRequestV1Schema, params);
      return getTaskResultToV1(applyHistoryLength(dispatcher.get(p.id), p.historyLength));
    },
    ListTasks: (params, call) => {
      const p = parseV1Params(ListTasksRequestV1Schema, params);
      const page = dispatcher.list({
        ...listQueryFromV1(p),
        ...(call.agentFromPath ? { agent: call.agentFromPath } : {}),
      });
      return listTasksResultToV1(page, p);
    },
    CancelTask: async (params, call) =>
      getTaskResultToV1(await cancelAs(dispatcher, parseV1Params(CancelTaskRequestV1Schema, params).id, call)),
    SubscribeToTask: (params, call) => {
      const p = parseV1Params(SubscribeToTaskRequestV1Schema, params);
      // v1 §3.1.6: "The stream MUST terminate when the task reaches a terminal state (TASK_STATE_COMPLETED,
      // TASK_STATE_FAILED, TASK_STATE_CANCELED, TASK_STATE_REJECTED)" — not before: a subscriber to a task
      // waiting for input sees the answer's turn too (conformance kit STREAM-SUB-002).
      return subscribeStream(dispatcher, p.id, {
        afterSeq: p.metadata?.afterSeq ?? call.resumeAfter,
        convert: streamEventToV1,
        endsAt: endsAtTerminal,
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

/**
 * v1 params are ProtoJSON: the proto field names (`history_length`, `message.message_id`) are read as
 * their JSON names, and one field under both names is -32602 (see proto-json-names.ts).
 */
function parseV1Params<S extends z.ZodType>(schema: S, params: unknown): z.infer<S> {
  let named: unknown;
  try {
    named = withJsonNames(params ?? {});
  } catch (err) {
    if (err instanceof DuplicateFieldError) throw new RpcError(-32602, err.message);
    throw err;
  }
  return parseParams(schema, named);
}

function pushNotSupported(): never {
  throw new RpcError(
    -32003,
    'push notifications are not supported (capabilities.pushNotifications is false); stream or poll instead',
  );
}
