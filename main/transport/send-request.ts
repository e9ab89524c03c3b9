import { authorize } from '../domain/authority.js';
import { BridgeError, taskNotFound } from '../domain/errors.js';
import type { Message, Part, Task } from '../domain/task.js';
import type { Dispatcher, SendRequest } from '../runtime/dispatcher.js';
import { MessageSendParamsSchema, isObject, type MessageSendParams } from '../schema/a2a.js';
import { BridgeSendParamsSchema, type BridgeSendParams, type DelegationParams } from '../schema/rpc.js';
import { SendMetadataSchema, type SendMetadata } from '../schema/send-metadata.js';
import { parseParams } from './parse-params.js';
import { RpcError, describeZodError } from './rpc-errors.js';
import type { RpcCall } from './rpc-types.js';

export interface AgentLookup {
  agents(): string[];
  agentOfTask(taskId: string): string | undefined;
  /** The root endpoint's agent when a send names none (runtime/registry.ts `defaultAgent`). */
  defaultAgent(): string | undefined;
}

/**
 * How a send without an endpoint agent finds its agent: from the task it continues, if any, else the
 * default agent (docs/contract.md#the-default-agent). Only where the agent comes from differs: the send
 * itself is the one every endpoint makes (dispatcher.send / answerSend).
 */
export function agentLookup(dispatcher: Dispatcher): AgentLookup {
  return {
    agents: () => dispatcher.registry.names(),
    defaultAgent: () => dispatcher.registry.defaultAgent()?.name,
    agentOfTask: (id) => {
      try {
        return dispatcher.get(id).metadata.agent;
      } catch {
        return undefined;
      }
    },
  };
}

export interface ParsedSend {
  request: SendRequest;
  historyLength?: number;
}

/** Either send form (standard A2A `message`, or the bridge shorthand) as one SendRequest. */
export function parseSend(params: unknown, call: RpcCall, lookup: AgentLookup): ParsedSend {
  if (isObject(params) && 'message' in params) {
    return fromStandard(parseParams(MessageSendParamsSchema, params), call, lookup);
  }
  // At /agents/<name> the endpoint names the agent, so the shorthand may leave `agent` out; at `/`, the
  // default agent stands in for it.
  const implied = call.agentFromPath ?? lookup.defaultAgent();
  const withAgent = implied && isObject(params) && params.agent === undefined ? { ...params, agent: implied } : params;
  return fromShorthand(parseParams(BridgeSendParamsSchema, withAgent), call);
}

export function fromStandard(params: MessageSendParams, call: RpcCall, lookup: AgentLookup): ParsedSend {
  const meta = parseMeta(params.metadata, 'params.metadata');
  const messageMeta = parseMeta(params.message.metadata, 'params.message.metadata');
  if (params.message.role !== 'user') {
    throw new BridgeError('invalid-params', 'params.message.role: a message sent to an agent must have role "user"');
  }
  const agent =
    call.agentFromPath ??
    meta.agent ??
    messageMeta.agent ??
    (params.message.taskId ? lookup.agentOfTask(params.message.taskId) : lookup.defaultAgent());
  if (!agent) {
    if (params.message.taskId) throw taskNotFound(params.message.taskId);
    throw noAgentChosen(lookup.agents());
  }
  const message: Message = { ...params.message, kind: 'message' } as Message;
  const depth = meta.delegationDepth ?? messageMeta.delegationDepth;
  const visited = [...(meta.visitedAgents ?? []), ...(messageMeta.visitedAgents ?? [])];
  return {
    request: {
      agent,
      message,
      idempotent: true,
      blocking: params.configuration?.blocking ?? true,
      delegation: {
        ...(depth !== undefined ? { depth } : {}),
        ...(visited.length ? { visited } : {}),
        ...optional('parentTaskId', meta.parentTaskId ?? messageMeta.parentTaskId),
        ...optional('callerAgent', callerOf(call, meta.callerAgent ?? messageMeta.callerAgent)),
      },
      ...optional('cwd', meta.cwd ?? messageMeta.cwd),
      by: call.identity,
    },
    ...(params.configuration?.historyLength !== undefined ? { historyLength: params.configuration.historyLength } : {}),
  };
}

/** A send to `/` that names no agent, with several configured and no `default_agent`: what each fix is. */
function noAgentChosen(agents: string[]): BridgeError {
  return new BridgeError(
    'invalid-params',
    `no agent chosen: post to /agents/<name>, set params.metadata.agent, or set default_agent in config.yaml; agents: ${agents.join(', ') || '(none configured)'}`,
    { agents },
  );
}

function fromShorthand(params: BridgeSendParams, call: RpcCall): ParsedSend {
  if (call.agentFromPath && params.agent !== call.agentFromPath) {
    throw new BridgeError(
      'invalid-params',
      `params.agent "${params.agent}" does not match this endpoint's agent "${call.agentFromPath}"`,
    );
  }
  const files: Part[] = (params.files ?? []).map((f) => ({
    kind: 'file',
    file: { name: f.name, bytes: f.bytes, ...(f.mimeType ? { mimeType: f.mimeType } : {}) },
  }));
  const message: Message = {
    kind: 'message',
    messageId: params.messageId ?? crypto.randomUUID(),
    role: 'user',
    parts: [{ kind: 'text', text: params.text }, ...files],
    ...(params.contextId ? { contextId: params.contextId } : {}),
  };
  return {
    request: {
      agent: params.agent,
      message,
      idempotent: params.messageId !== undefined,
      blocking: params.configuration?.blocking ?? true,
      delegation: delegationOf({ ...params, callerAgent: callerOf(call, params.callerAgent) }),
      ...optional('cwd', params.cwd),
      by: call.identity,
    },
    ...(params.configuration?.historyLength !== undefined ? { historyLength: params.configuration.historyLength } : {}),
  };
}

/** The delegation hints a shorthand send or an orchestrate call carries as params (DelegationParamsShape). */
export function delegationOf(params: DelegationParams): SendRequest['delegation'] {
  return {
    ...optional('depth', params.delegationDepth),
    ...optional('visited', params.visitedAgents),
    ...optional('parentTaskId', params.parentTaskId),
    ...optional('callerAgent', params.callerAgent),
  };
}

/** `tasks/cancel` and `CancelTask`: the person, or the caller that created the task (domain/authority.ts). */
export function cancelAs(dispatcher: Dispatcher, taskId: string, call: RpcCall): Promise<Task> {
  const { agent, createdBy } = dispatcher.get(taskId).metadata;
  authorize('cancel a task', call.identity, { id: taskId, agent, createdBy });
  return dispatcher.cancel(taskId, call.identity);
}

/**
 * The calling agent as a hint: the one whose token authenticated the call, else the declared one. The
 * chain itself is decided in runtime/delegation.ts (resolveChain), which takes an agent token's chain from
 * the tasks that agent runs and reads hints only from the install token (a contactor peer names its agent
 * so a loop across bridges is seen).
 */
export function callerOf(call: RpcCall, declared: string | undefined): string | undefined {
  return call.callerAgent ?? declared;
}

function parseMeta(value: unknown, where: string): SendMetadata {
  if (value === undefined) return {};
  const parsed = SendMetadataSchema.safeParse(value);
  if (!parsed.success) throw new RpcError(-32602, describeZodError(parsed.error, where));
  return parsed.data;
}

/** `{ key: value }`, or nothing when the value is undefined (exactOptionalPropertyTypes). */
export function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
