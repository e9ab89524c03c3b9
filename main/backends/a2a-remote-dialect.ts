/**
 * The two protocol versions as one: method names, the version header, request params and the peer's
 * results turned into one small event shape. v1 ProtoJSON goes through the transport's converters (the
 * internal model is the v0.3 shape), so nothing about either wire is written twice.
 */
import type { Artifact, Message } from '../domain/task.js';
import { ResultV03Schema } from '../schema/a2a-remote.js';
import type { WireTaskState } from '../schema/a2a.js';
import { StreamResponseV1Schema, TaskV1Schema } from '../schema/a2a-v1.js';
import {
  artifactFromV1,
  messageFromV1,
  sendRequestToV1,
  taskFromV1,
  taskStateFromV1,
} from '../schema/a2a-v1-convert.js';
import { PeerError } from './a2a-remote-rpc.js';
import type { PeerProtocol } from './a2a-remote-peer.js';

export interface PeerTaskView {
  id: string;
  contextId: string;
  state: WireTaskState;
  statusMessage?: Message;
  /** Tells one status from the next (its message id, else its timestamp). */
  statusKey?: string;
  artifacts: Artifact[];
  metadata: Record<string, unknown>;
}

export type PeerEvent =
  | { kind: 'task'; task: PeerTaskView }
  | { kind: 'message'; message: Message }
  | { kind: 'status'; taskId: string; contextId: string; state: WireTaskState; message?: Message }
  | { kind: 'artifact'; taskId: string; contextId: string; artifact: Artifact; append: boolean };

export interface Dialect {
  readonly methods: { send: string; stream: string; get: string; cancel: string; resubscribe: string };
  readonly headers: Record<string, string>;
  /** `blocking` set: wait for a terminal or interrupted state; unset for streams. */
  sendParams(message: Message, blocking?: boolean): unknown;
  /** One result (a send's, a get's or a stream event's) in the common shape. */
  toEvent(result: unknown): PeerEvent;
}

export function dialectFor(protocol: PeerProtocol): Dialect {
  return protocol === '1.0' ? V1 : V03;
}

const V1: Dialect = {
  methods: {
    send: 'SendMessage',
    stream: 'SendStreamingMessage',
    get: 'GetTask',
    cancel: 'CancelTask',
    resubscribe: 'SubscribeToTask',
  },
  headers: { 'A2A-Version': '1.0' },
  sendParams: (message, blocking) =>
    sendRequestToV1({ message, ...(blocking !== undefined ? { configuration: { blocking } } : {}) }),
  toEvent(result) {
    const wrapped = StreamResponseV1Schema.safeParse(result);
    if (wrapped.success) {
      const r = wrapped.data;
      if (r.task) return { kind: 'task', task: view(taskFromV1(r.task)) };
      if (r.message) return { kind: 'message', message: messageFromV1(r.message) };
      if (r.statusUpdate) {
        const { taskId, contextId, status } = r.statusUpdate;
        return {
          kind: 'status',
          taskId,
          contextId,
          state: taskStateFromV1(status.state),
          ...(status.message ? { message: messageFromV1(status.message) } : {}),
        };
      }
      const a = r.artifactUpdate!;
      return {
        kind: 'artifact',
        taskId: a.taskId,
        contextId: a.contextId,
        artifact: artifactFromV1(a.artifact),
        append: a.append ?? false,
      };
    }
    // GetTask / CancelTask answer with the bare Task.
    const task = TaskV1Schema.safeParse(result);
    if (task.success) return { kind: 'task', task: view(taskFromV1(task.data)) };
    throw unreadable(result);
  },
};

const V03: Dialect = {
  methods: {
    send: 'message/send',
    stream: 'message/stream',
    get: 'tasks/get',
    cancel: 'tasks/cancel',
    resubscribe: 'tasks/resubscribe',
  },
  headers: {},
  sendParams: (message, blocking) => ({ message, ...(blocking !== undefined ? { configuration: { blocking } } : {}) }),
  toEvent(result) {
    const parsed = ResultV03Schema.safeParse(result);
    if (!parsed.success) throw unreadable(result);
    const r = parsed.data;
    switch (r.kind) {
      case 'task':
        return { kind: 'task', task: view({ ...r, status: r.status }) };
      case 'message':
        return { kind: 'message', message: r as Message };
      case 'status-update':
        return {
          kind: 'status',
          taskId: r.taskId,
          contextId: r.contextId,
          state: r.status.state,
          ...(r.status.message ? { message: r.status.message as Message } : {}),
        };
      case 'artifact-update':
        return {
          kind: 'artifact',
          taskId: r.taskId,
          contextId: r.contextId,
          artifact: r.artifact as Artifact,
          append: r.append ?? false,
        };
      default: {
        const never: never = r;
        return never;
      }
    }
  },
};

function view(task: {
  id: string;
  contextId: string;
  status: { state: WireTaskState; message?: { messageId: string } | undefined; timestamp?: string | undefined };
  artifacts: unknown[];
  metadata: Record<string, unknown>;
}): PeerTaskView {
  const statusKey = task.status.message?.messageId ?? task.status.timestamp;
  return {
    id: task.id,
    contextId: task.contextId,
    state: task.status.state,
    ...(task.status.message ? { statusMessage: task.status.message as Message } : {}),
    ...(statusKey ? { statusKey } : {}),
    artifacts: task.artifacts as Artifact[],
    metadata: task.metadata,
  };
}

function unreadable(result: unknown): PeerError {
  return new PeerError(
    `the peer sent a result that is not an A2A task, message or event: ${JSON.stringify(result)?.slice(0, 160)}`,
    { retryable: false },
  );
}
