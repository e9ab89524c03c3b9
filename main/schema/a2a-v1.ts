/**
 * A2A v1.0 wire shapes: ProtoJSON of `lf.a2a.v1` (a2a.proto) — camelCase members, enums by name, and
 * no `kind` discriminators: the member name is the discriminator (a Part's oneof, a StreamResponse's).
 *
 * Requests are validated strictly where the spec says MUST (§3.3, reference §5): empty `parts`, a
 * missing `role`/`messageId`, a negative `historyLength`, a part with none or several of
 * text/raw/url/data, `pageSize` outside 1–100. Unknown members are stripped.
 */
import { z } from 'zod';
import { HistoryLengthSchema, MetadataSchema, ResumeMetadataSchema, TaskIdSchema } from './a2a.js';

export const PART_CONTENT_MEMBERS = ['text', 'raw', 'url', 'data'] as const;

/** ProtoJSON bytes: standard or URL-safe base64, padding optional. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

export const PartV1Schema = z
  .object({
    text: z.string().optional(),
    raw: z.string().regex(BASE64, 'raw must be base64').optional(),
    url: z.string().min(1, 'url must not be empty').optional(),
    /** Any JSON value (google.protobuf.Value), unlike v0.3 where it must be an object. */
    data: z.unknown().optional(),
    mediaType: z.string().optional(),
    filename: z.string().optional(),
    metadata: MetadataSchema.optional(),
  })
  .superRefine((part, ctx) => {
    const set = PART_CONTENT_MEMBERS.filter((k) => part[k] !== undefined);
    if (set.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          set.length === 0
            ? 'a part needs one of text, raw, url or data'
            : `a part holds exactly one of text, raw, url or data, not ${set.join(' and ')}`,
      });
    }
  });

export const ROLES_V1 = ['ROLE_USER', 'ROLE_AGENT'] as const;
export const RoleV1Schema = z.enum(ROLES_V1, {
  error: (issue) =>
    issue.input === undefined
      ? 'role is required ("ROLE_USER" or "ROLE_AGENT")'
      : 'role must be "ROLE_USER" or "ROLE_AGENT"',
});

export const MessageV1Schema = z.object({
  messageId: z.string({ error: 'messageId is required (a non-empty string)' }).min(1, 'messageId must not be empty'),
  role: RoleV1Schema,
  parts: z.array(PartV1Schema, { error: 'parts is required (an array of parts)' }).min(1, 'parts must not be empty'),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  referenceTaskIds: z.array(z.string()).optional(),
  extensions: z.array(z.string()).optional(),
  metadata: MetadataSchema.optional(),
});

export const TASK_STATES_V1 = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
export const TaskStateV1Schema = z.enum(TASK_STATES_V1, { error: 'state must be a TASK_STATE_* name' });

export const TaskStatusV1Schema = z.object({
  state: TaskStateV1Schema,
  message: MessageV1Schema.optional(),
  timestamp: z.string().optional(),
});

export const ArtifactV1Schema = z.object({
  artifactId: z.string().min(1, 'artifactId must not be empty'),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(PartV1Schema).min(1, 'artifact parts must not be empty'),
  metadata: MetadataSchema.optional(),
  extensions: z.array(z.string()).optional(),
});

export const TaskV1Schema = z.object({
  id: z.string().min(1),
  contextId: z.string().optional(),
  status: TaskStatusV1Schema,
  history: z.array(MessageV1Schema).optional(),
  artifacts: z.array(ArtifactV1Schema).optional(),
  metadata: MetadataSchema.optional(),
});

export const TaskStatusUpdateEventV1Schema = z.object({
  taskId: z.string(),
  contextId: z.string(),
  status: TaskStatusV1Schema,
  metadata: MetadataSchema.optional(),
});

export const TaskArtifactUpdateEventV1Schema = z.object({
  taskId: z.string(),
  contextId: z.string(),
  artifact: ArtifactV1Schema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: MetadataSchema.optional(),
});

const STREAM_RESPONSE_MEMBERS = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;

/** One SSE event's `result`: exactly one of task | message | statusUpdate | artifactUpdate (proto oneof). */
export const StreamResponseV1Schema = z
  .strictObject({
    task: TaskV1Schema.optional(),
    message: MessageV1Schema.optional(),
    statusUpdate: TaskStatusUpdateEventV1Schema.optional(),
    artifactUpdate: TaskArtifactUpdateEventV1Schema.optional(),
  })
  .refine((r) => STREAM_RESPONSE_MEMBERS.filter((k) => r[k] !== undefined).length === 1, {
    message: 'a StreamResponse holds exactly one of task, message, statusUpdate, artifactUpdate',
  });

/** `SendMessage` result: `{task}` or `{message}`. */
export const SendMessageResponseV1Schema = z
  .strictObject({ task: TaskV1Schema.optional(), message: MessageV1Schema.optional() })
  .refine((r) => (r.task === undefined) !== (r.message === undefined), {
    message: 'a SendMessageResponse holds exactly one of task, message',
  });

export const ListTasksResponseV1Schema = z.object({
  tasks: z.array(TaskV1Schema),
  nextPageToken: z.string(),
  pageSize: z.number().int(),
  totalSize: z.number().int(),
});

export type PartV1 = z.infer<typeof PartV1Schema>;
export type RoleV1 = z.infer<typeof RoleV1Schema>;
export type MessageV1 = z.infer<typeof MessageV1Schema>;
export type TaskStateV1 = z.infer<typeof TaskStateV1Schema>;
export type TaskStatusV1 = z.infer<typeof TaskStatusV1Schema>;
export type ArtifactV1 = z.infer<typeof ArtifactV1Schema>;
export type TaskV1 = z.infer<typeof TaskV1Schema>;
export type TaskStatusUpdateEventV1 = z.infer<typeof TaskStatusUpdateEventV1Schema>;
export type TaskArtifactUpdateEventV1 = z.infer<typeof TaskArtifactUpdateEventV1Schema>;
export type StreamResponseV1 = z.infer<typeof StreamResponseV1Schema>;
export type SendMessageResponseV1 = z.infer<typeof SendMessageResponseV1Schema>;
export type ListTasksResponseV1 = z.infer<typeof ListTasksResponseV1Schema>;

// ───────────────────────── Requests ─────────────────────────

const tenant = z.string().optional();

/** v1 flat push config (`TaskPushNotificationConfig`); accepted so the bridge can answer -32003 cleanly. */
export const TaskPushNotificationConfigV1Schema = z.object({
  url: z.string().min(1, 'url must not be empty'),
  id: z.string().optional(),
  token: z.string().optional(),
  authentication: z.object({ scheme: z.string(), credentials: z.string().optional() }).optional(),
});

export const SendMessageConfigurationV1Schema = z.object({
  acceptedOutputModes: z.array(z.string()).optional(),
  historyLength: HistoryLengthSchema.optional(),
  /** Default false (v1 §3.1.1): wait until the task is terminal or interrupted. */
  returnImmediately: z.boolean().optional(),
  taskPushNotificationConfig: TaskPushNotificationConfigV1Schema.optional(),
});

export const SendMessageRequestV1Schema = z.object({
  message: MessageV1Schema,
  configuration: SendMessageConfigurationV1Schema.optional(),
  metadata: MetadataSchema.optional(),
  tenant,
});

export const GetTaskRequestV1Schema = z.object({
  id: TaskIdSchema,
  historyLength: HistoryLengthSchema.optional(),
  tenant,
});

export const ListTasksRequestV1Schema = z.object({
  contextId: z.string().optional(),
  status: TaskStateV1Schema.optional(),
  pageSize: z
    .number({ error: 'pageSize must be a number' })
    .int('pageSize must be a whole number')
    .min(1, 'pageSize must be between 1 and 100')
    .max(100, 'pageSize must be between 1 and 100')
    .default(50),
  pageToken: z.string().optional(),
  historyLength: HistoryLengthSchema.optional(),
  statusTimestampAfter: z.iso
    .datetime({ offset: true, error: 'statusTimestampAfter must be an ISO-8601 timestamp' })
    .optional(),
  includeArtifacts: z.boolean().default(false),
  tenant,
});

export const CancelTaskRequestV1Schema = z.object({ id: TaskIdSchema, metadata: MetadataSchema.optional(), tenant });

/** `metadata.afterSeq` is the bridge's resume cursor (docs/contract.md#streaming). */
export const SubscribeToTaskRequestV1Schema = z.object({
  id: TaskIdSchema,
  metadata: ResumeMetadataSchema.optional(),
  tenant,
});

export type TaskPushNotificationConfigV1 = z.infer<typeof TaskPushNotificationConfigV1Schema>;
export type SendMessageConfigurationV1 = z.infer<typeof SendMessageConfigurationV1Schema>;
export type SendMessageRequestV1 = z.infer<typeof SendMessageRequestV1Schema>;
export type GetTaskRequestV1 = z.infer<typeof GetTaskRequestV1Schema>;
export type ListTasksRequestV1 = z.infer<typeof ListTasksRequestV1Schema>;
export type CancelTaskRequestV1 = z.infer<typeof CancelTaskRequestV1Schema>;
export type SubscribeToTaskRequestV1 = z.infer<typeof SubscribeToTaskRequestV1Schema>;
