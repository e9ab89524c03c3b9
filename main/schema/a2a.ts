/**
 * A2A v0.3 wire shapes (JSON-RPC params and results), parsed once at the edge. The bridge's internal
 * model (domain/task.ts) has the same shape, so a parsed value is handed inward as is.
 *
 * Validation follows the spec's MUSTs (A2A v0.3 §6, §7; reference §5): empty `parts`, a missing `role`
 * or `messageId`, a negative `historyLength`, an unknown part `kind` and a non-object data part are
 * rejected with an issue naming the field. Unknown members are stripped (the spec says SHOULD ignore).
 */
import { z } from 'zod';
import { TASK_STATES } from '../domain/task.js';

export const MetadataSchema = z.record(z.string(), z.unknown());

const nonEmpty = (field: string) =>
  z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${field} is required (a non-empty string)` : `${field} must be a string`,
    })
    .min(1, `${field} must not be empty`);

export const HistoryLengthSchema = z
  .number({ error: 'historyLength must be a number' })
  .int('historyLength must be a whole number')
  .min(0, 'historyLength must be 0 or more (0 = no history)');

// ───────────────────────── Parts ─────────────────────────

export const TextPartSchema = z.object({
  kind: z.literal('text'),
  text: z.string({ error: 'a text part needs `text` (a string)' }),
  metadata: MetadataSchema.optional(),
});

/** v0.3 FileWithBytes | FileWithUri: exactly one of `bytes` (base64) and `uri`. */
export const FileContentSchema = z
  .object({
    bytes: z.string().optional(),
    uri: z.string().min(1).optional(),
    mimeType: z.string().optional(),
    name: z.string().optional(),
  })
  .refine((f) => (f.bytes === undefined) !== (f.uri === undefined), {
    message: 'a file needs exactly one of `bytes` (base64) or `uri`',
  });

export const FilePartSchema = z.object({
  kind: z.literal('file'),
  file: FileContentSchema,
  metadata: MetadataSchema.optional(),
});

export const DataPartSchema = z.object({
  kind: z.literal('data'),
  data: z.record(z.string(), z.unknown(), { error: 'a data part needs `data` as a JSON object (v0.3)' }),
  metadata: MetadataSchema.optional(),
});

export const PartSchema = z.discriminatedUnion('kind', [TextPartSchema, FilePartSchema, DataPartSchema], {
  error: 'part kind must be "text", "file" or "data"',
});

// ───────────────────────── Message, artifact, task ─────────────────────────

export const RoleSchema = z.enum(['user', 'agent'], {
  error: (issue) =>
    issue.input === undefined ? 'role is required ("user" or "agent")' : 'role must be "user" or "agent"',
});

export const MessageSchema = z.object({
  /** The discriminator; clients that leave it out are still understood, a wrong value is not. */
  kind: z.literal('message', { error: 'message kind must be "message"' }).default('message'),
  messageId: nonEmpty('messageId'),
  role: RoleSchema,
  parts: z.array(PartSchema, { error: 'parts is required (an array of parts)' }).min(1, 'parts must not be empty'),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  referenceTaskIds: z.array(z.string()).optional(),
  metadata: MetadataSchema.optional(),
});

export const ArtifactSchema = z.object({
  artifactId: nonEmpty('artifactId'),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(PartSchema).min(1, 'artifact parts must not be empty'),
  metadata: MetadataSchema.optional(),
});

/** `unknown` exists on the v0.3 wire only (v1 TASK_STATE_UNSPECIFIED); the bridge never produces it. */
export const WireTaskStateSchema = z.enum([...TASK_STATES, 'unknown']);

export const TaskStatusSchema = z.object({
  state: WireTaskStateSchema,
  message: MessageSchema.optional(),
  timestamp: z.string().optional(),
});

export const TaskSchema = z.object({
  kind: z.literal('task').default('task'),
  id: nonEmpty('id'),
  contextId: z.string(),
  status: TaskStatusSchema,
  history: z.array(MessageSchema).default([]),
  artifacts: z.array(ArtifactSchema).default([]),
  metadata: MetadataSchema.default({}),
});

export type WirePart = z.infer<typeof PartSchema>;
export type WireMessage = z.infer<typeof MessageSchema>;
export type WireArtifact = z.infer<typeof ArtifactSchema>;
export type WireTaskState = z.infer<typeof WireTaskStateSchema>;
export type WireTask = z.infer<typeof TaskSchema>;

// ───────────────────────── Request params ─────────────────────────

export const PushNotificationConfigSchema = z.object({
  id: z.string().optional(),
  url: nonEmpty('pushNotificationConfig.url'),
  token: z.string().optional(),
  authentication: z.object({ schemes: z.array(z.string()), credentials: z.string().optional() }).optional(),
});

export const MessageSendConfigurationSchema = z.object({
  acceptedOutputModes: z.array(z.string()).optional(),
  historyLength: HistoryLengthSchema.optional(),
  pushNotificationConfig: PushNotificationConfigSchema.optional(),
  /** Default true (v0.3 §7.1): wait until the task is terminal or interrupted. */
  blocking: z.boolean().optional(),
});

/** Standard `message/send` / `message/stream` params. */
export const MessageSendParamsSchema = z.object({
  message: MessageSchema,
  configuration: MessageSendConfigurationSchema.optional(),
  metadata: MetadataSchema.optional(),
});

/** The bridge's shorthand (docs/contract.md#sending-a-message): one agent, plain text. */
export const ShorthandSendParamsSchema = z.object({
  agent: nonEmpty('agent'),
  text: z
    .string({
      error: (issue) =>
        issue.input === undefined ? 'text is required (what to send the agent)' : 'text must be a string',
    })
    .min(1, 'text must not be empty'),
  contextId: z.string().min(1).optional(),
  messageId: z.string().min(1).optional(),
  delegationDepth: z.number().int().min(0, 'delegationDepth must be 0 or more').optional(),
  visitedAgents: z.array(z.string()).optional(),
  configuration: MessageSendConfigurationSchema.optional(),
});

export type PushNotificationConfig = z.infer<typeof PushNotificationConfigSchema>;
export type MessageSendConfiguration = z.infer<typeof MessageSendConfigurationSchema>;
export type MessageSendParams = z.infer<typeof MessageSendParamsSchema>;
export type ShorthandSendParams = z.infer<typeof ShorthandSendParamsSchema>;

export type SendParams =
  { form: 'message'; params: MessageSendParams } | { form: 'shorthand'; params: ShorthandSendParams };

/**
 * Parses either send form. The form is chosen by shape (a `message` member means standard A2A) so a
 * bad request gets the errors of the form it meant, not the union of both.
 */
export function parseSendParams(
  input: unknown,
): { success: true; data: SendParams } | { success: false; error: z.ZodError } {
  const looksShorthand = isObject(input) && !('message' in input) && ('agent' in input || 'text' in input);
  if (looksShorthand) {
    const r = ShorthandSendParamsSchema.safeParse(input);
    return r.success
      ? { success: true, data: { form: 'shorthand', params: r.data } }
      : { success: false, error: r.error };
  }
  const r = MessageSendParamsSchema.safeParse(input);
  return r.success ? { success: true, data: { form: 'message', params: r.data } } : { success: false, error: r.error };
}

/** A JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A task id in request params (v0.3 `id`, v1 `id`). */
export const TaskIdSchema = z.string({ error: 'id is required (the task id)' }).min(1, 'id must not be empty');

/** The resume cursor `metadata.afterSeq` of a resubscribe (docs/contract.md#streaming), v0.3 and v1 alike. */
export const ResumeMetadataSchema = z.looseObject({
  afterSeq: z.number().int().min(0, 'metadata.afterSeq must be 0 or more').optional(),
});

/** Accepts `taskId` as an alias of `id` (docs/contract.md#json-rpc-methods). */
function withTaskId<S extends z.ZodRawShape>(shape: S) {
  const object = z.object({
    id: TaskIdSchema,
    ...shape,
  });
  return z.preprocess(
    (v) => (isObject(v) && v.id === undefined && v.taskId !== undefined ? { ...v, id: v.taskId } : v),
    object,
  );
}

/** `tasks/get`. */
export const TaskQueryParamsSchema = withTaskId({
  historyLength: HistoryLengthSchema.optional(),
  metadata: MetadataSchema.optional(),
});

/** `tasks/cancel`. */
export const TaskIdParamsSchema = withTaskId({ metadata: MetadataSchema.optional() });

/** `tasks/resubscribe`: `metadata.afterSeq` is the resume cursor (docs/contract.md#streaming). */
export const ResubscribeParamsSchema = withTaskId({ metadata: ResumeMetadataSchema.optional() });

export type TaskQueryParams = z.infer<typeof TaskQueryParamsSchema>;
export type TaskIdParams = z.infer<typeof TaskIdParamsSchema>;
export type ResubscribeParams = z.infer<typeof ResubscribeParamsSchema>;
