/**
 * Pure converters between the bridge's internal model (A2A v0.3 shape, domain/task.ts) and the v1.0
 * ProtoJSON wire (schema/a2a-v1.ts). The v0.3 wire needs no conversion beyond dropping `seq` from
 * events (see a2a-v03.ts). Nothing here does I/O or validation: inputs were parsed at the edge.
 */
import type { StreamEvent } from '../domain/events.js';
import type { Artifact, Message, Part, Task, TaskState } from '../domain/task.js';
import {
  isObject,
  type MessageSendConfiguration,
  type MessageSendParams,
  type PushNotificationConfig,
  type WireTaskState,
} from '../schema/a2a.js';
import type {
  ArtifactV1,
  ListTasksRequestV1,
  ListTasksResponseV1,
  MessageV1,
  PartV1,
  SendMessageConfigurationV1,
  SendMessageRequestV1,
  SendMessageResponseV1,
  StreamResponseV1,
  TaskStateV1,
  TaskStatusV1,
  TaskV1,
} from '../schema/a2a-v1.js';

// ───────────────────────── Enums ─────────────────────────

const STATE_TO_V1: Readonly<Record<WireTaskState, TaskStateV1>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};
const STATE_FROM_V1 = Object.fromEntries(Object.entries(STATE_TO_V1).map(([k, v]) => [v, k])) as Readonly<
  Record<TaskStateV1, WireTaskState>
>;

export function taskStateToV1(state: WireTaskState): TaskStateV1 {
  return STATE_TO_V1[state];
}

/** `TASK_STATE_UNSPECIFIED` becomes v0.3 `unknown`, a state the bridge never stores. */
export function taskStateFromV1(state: TaskStateV1): WireTaskState {
  return STATE_FROM_V1[state];
}

/** v1 wants `YYYY-MM-DDTHH:mm:ss.sssZ` (UTC, `Z` only); offsets are normalised, garbage passes through. */
export function toV1Timestamp(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString();
}

// ───────────────────────── Parts, messages, artifacts ─────────────────────────

export function partToV1(part: Part): PartV1 {
  const meta = part.metadata ? { metadata: part.metadata } : {};
  switch (part.kind) {
    case 'text':
      return { text: part.text, ...meta };
    case 'data':
      return { data: part.data, ...meta };
    case 'file': {
      const { bytes, uri, mimeType, name } = part.file;
      return {
        ...(bytes !== undefined ? { raw: bytes } : { url: uri ?? '' }),
        ...(mimeType !== undefined ? { mediaType: mimeType } : {}),
        ...(name !== undefined ? { filename: name } : {}),
        ...meta,
      };
    }
    default: {
      const never: never = part;
      return never;
    }
  }
}

/**
 * A v1 data part may hold any JSON value, a v0.3 one only an object: non-objects are wrapped as
 * `{value: ...}` so agents still get them (the original is kept, not dropped).
 */
export function partFromV1(part: PartV1): Part {
  const meta = part.metadata ? { metadata: part.metadata } : {};
  if (part.text !== undefined) return { kind: 'text', text: part.text, ...meta };
  if (part.data !== undefined) {
    const data = isObject(part.data) ? part.data : { value: part.data };
    return { kind: 'data', data, ...meta };
  }
  const file = {
    ...(part.raw !== undefined ? { bytes: part.raw } : { uri: part.url ?? '' }),
    ...(part.mediaType ? { mimeType: part.mediaType } : {}),
    ...(part.filename ? { name: part.filename } : {}),
  };
  return { kind: 'file', file, ...meta };
}

export function messageToV1(message: Message): MessageV1 {
  return {
    messageId: message.messageId,
    role: message.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT',
    parts: message.parts.map(partToV1),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.referenceTaskIds?.length ? { referenceTaskIds: message.referenceTaskIds } : {}),
    ...(message.metadata ? { metadata: message.metadata } : {}),
  };
}

/** ProtoJSON omits empty strings, and some emitters send them anyway: `""` ids mean "not set". */
export function messageFromV1(message: MessageV1): Message {
  return {
    kind: 'message',
    messageId: message.messageId,
    role: message.role === 'ROLE_USER' ? 'user' : 'agent',
    parts: message.parts.map(partFromV1),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.referenceTaskIds?.length ? { referenceTaskIds: message.referenceTaskIds } : {}),
    ...(message.metadata ? { metadata: message.metadata } : {}),
  };
}

export function artifactToV1(artifact: Artifact): ArtifactV1 {
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name !== undefined ? { name: artifact.name } : {}),
    ...(artifact.description !== undefined ? { description: artifact.description } : {}),
    parts: artifact.parts.map(partToV1),
    ...(artifact.metadata ? { metadata: artifact.metadata } : {}),
  };
}

export function artifactFromV1(artifact: ArtifactV1): Artifact {
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name !== undefined ? { name: artifact.name } : {}),
    ...(artifact.description !== undefined ? { description: artifact.description } : {}),
    parts: artifact.parts.map(partFromV1),
    ...(artifact.metadata ? { metadata: artifact.metadata } : {}),
  };
}

// ───────────────────────── Tasks ─────────────────────────

export function statusToV1(status: { state: WireTaskState; message?: Message; timestamp?: string }): TaskStatusV1 {
  return {
    state: taskStateToV1(status.state),
    ...(status.message ? { message: messageToV1(status.message) } : {}),
    ...(status.timestamp ? { timestamp: toV1Timestamp(status.timestamp) } : {}),
  };
}

/**
 * Empty `history` / `artifacts` are left out, as ProtoJSON does; ListTasks relies on it (artifacts
 * MUST be absent without `includeArtifacts`). Pair with `applyHistoryLength` first.
 */
export function taskToV1(task: Task): TaskV1 {
  return {
    id: task.id,
    contextId: task.contextId,
    status: statusToV1(task.status),
    ...(task.history.length ? { history: task.history.map(messageToV1) } : {}),
    ...(task.artifacts.length ? { artifacts: task.artifacts.map(artifactToV1) } : {}),
    metadata: task.metadata,
  };
}

/** A v1 task in the v0.3 shape (for tasks read from a remote v1 agent). Metadata passes through untyped. */
export interface TaskFromV1 {
  kind: 'task';
  id: string;
  contextId: string;
  status: { state: WireTaskState; message?: Message; timestamp?: string };
  history: Message[];
  artifacts: Artifact[];
  metadata: Record<string, unknown>;
}

export function taskFromV1(task: TaskV1): TaskFromV1 {
  const { state, message, timestamp } = task.status;
  return {
    kind: 'task',
    id: task.id,
    contextId: task.contextId ?? '',
    status: {
      state: taskStateFromV1(state),
      ...(message ? { message: messageFromV1(message) } : {}),
      ...(timestamp ? { timestamp } : {}),
    },
    history: (task.history ?? []).map(messageFromV1),
    artifacts: (task.artifacts ?? []).map(artifactFromV1),
    metadata: task.metadata ?? {},
  };
}

/**
 * `historyLength` (both versions): unset = the whole history, 0 = none, n = the newest n. Returns a
 * copy; the stored task is never trimmed.
 */
export function applyHistoryLength(task: Task, historyLength?: number): Task {
  if (historyLength === undefined) return { ...task, history: [...task.history] };
  return { ...task, history: historyLength <= 0 ? [] : task.history.slice(-historyLength) };
}

// ───────────────────────── Results and stream events ─────────────────────────

/** `SendMessage` result (v1 wraps it; v0.3 returns the Task itself). */
export function sendMessageResultToV1(task: Task): SendMessageResponseV1 {
  return { task: taskToV1(task) };
}

/** `GetTask` / `CancelTask` result: the bare Task, no wrapper. */
export function getTaskResultToV1(task: Task): TaskV1 {
  return taskToV1(task);
}

export function listTasksResultToV1(
  page: { tasks: Task[]; nextPageToken: string; totalSize: number },
  request: Pick<ListTasksRequestV1, 'pageSize' | 'historyLength' | 'includeArtifacts'>,
): ListTasksResponseV1 {
  return {
    tasks: page.tasks.map((t) => {
      const trimmed = applyHistoryLength(t, request.historyLength);
      return taskToV1(request.includeArtifacts ? trimmed : { ...trimmed, artifacts: [] });
    }),
    nextPageToken: page.nextPageToken,
    pageSize: request.pageSize,
    totalSize: page.totalSize,
  };
}

/** One stream event as a v1 `StreamResponse`. v1 has no `final`: closing the stream is the signal. */
export function streamEventToV1(event: StreamEvent): StreamResponseV1 {
  switch (event.kind) {
    case 'task':
      return { task: taskToV1(event.task) };
    case 'status-update':
      return {
        statusUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          status: statusToV1(event.status),
          ...(event.metadata ? { metadata: event.metadata } : {}),
        },
      };
    case 'artifact-update':
      return {
        artifactUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: artifactToV1(event.artifact),
          append: event.append,
          lastChunk: event.lastChunk,
        },
      };
    default: {
      const never: never = event;
      return never;
    }
  }
}

// ───────────────────────── Requests ─────────────────────────

export function configurationFromV1(config: SendMessageConfigurationV1): MessageSendConfiguration {
  const push = config.taskPushNotificationConfig;
  const pushNotificationConfig: PushNotificationConfig | undefined = push && {
    url: push.url,
    ...(push.id !== undefined ? { id: push.id } : {}),
    ...(push.token !== undefined ? { token: push.token } : {}),
    ...(push.authentication
      ? {
          authentication: {
            schemes: [push.authentication.scheme],
            ...(push.authentication.credentials !== undefined ? { credentials: push.authentication.credentials } : {}),
          },
        }
      : {}),
  };
  return {
    ...(config.acceptedOutputModes ? { acceptedOutputModes: config.acceptedOutputModes } : {}),
    ...(config.historyLength !== undefined ? { historyLength: config.historyLength } : {}),
    ...(config.returnImmediately !== undefined ? { blocking: !config.returnImmediately } : {}),
    ...(pushNotificationConfig ? { pushNotificationConfig } : {}),
  };
}

export function configurationToV1(config: MessageSendConfiguration): SendMessageConfigurationV1 {
  const push = config.pushNotificationConfig;
  return {
    ...(config.acceptedOutputModes ? { acceptedOutputModes: config.acceptedOutputModes } : {}),
    ...(config.historyLength !== undefined ? { historyLength: config.historyLength } : {}),
    ...(config.blocking !== undefined ? { returnImmediately: !config.blocking } : {}),
    ...(push
      ? {
          taskPushNotificationConfig: {
            url: push.url,
            ...(push.id !== undefined ? { id: push.id } : {}),
            ...(push.token !== undefined ? { token: push.token } : {}),
            ...(push.authentication?.schemes[0] !== undefined
              ? {
                  authentication: {
                    scheme: push.authentication.schemes[0],
                    ...(push.authentication.credentials !== undefined
                      ? { credentials: push.authentication.credentials }
                      : {}),
                  },
                }
              : {}),
          },
        }
      : {}),
  };
}

/** `SendMessage` / `SendStreamingMessage` params in the internal (v0.3) shape. `tenant` is dropped. */
export function sendRequestFromV1(request: SendMessageRequestV1): MessageSendParams {
  return {
    message: messageFromV1(request.message),
    ...(request.configuration ? { configuration: configurationFromV1(request.configuration) } : {}),
    ...(request.metadata ? { metadata: request.metadata } : {}),
  };
}

export function sendRequestToV1(params: MessageSendParams): SendMessageRequestV1 {
  return {
    message: messageToV1(params.message),
    ...(params.configuration ? { configuration: configurationToV1(params.configuration) } : {}),
    ...(params.metadata ? { metadata: params.metadata } : {}),
  };
}

/** ListTasks filters in store terms (ports.ts TaskQuery, minus the endpoint's `agent`). */
export function listQueryFromV1(request: ListTasksRequestV1): {
  contextId?: string;
  states?: TaskState[];
  updatedAfter?: string;
  pageSize: number;
  pageToken?: string;
  includeArtifacts: boolean;
} {
  const state = request.status ? taskStateFromV1(request.status) : undefined;
  return {
    ...(request.contextId ? { contextId: request.contextId } : {}),
    ...(state && state !== 'unknown' ? { states: [state] } : {}),
    ...(request.statusTimestampAfter ? { updatedAfter: toV1Timestamp(request.statusTimestampAfter) } : {}),
    pageSize: request.pageSize,
    ...(request.pageToken ? { pageToken: request.pageToken } : {}),
    includeArtifacts: request.includeArtifacts,
  };
}
