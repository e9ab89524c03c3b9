/**
 * What the `contactor` CLI reads from the bridge, validated once where it enters. The shapes are
 * the v0.3 wire (schema/a2a.ts) plus the bridge's own results; unknown members pass through, so a newer
 * bridge that adds facts does not break an older CLI.
 */
import { z } from 'zod';
import { TASK_STATES } from '../domain/task.js';
import { ArtifactSchema, TaskSchema, TaskStatusSchema } from './a2a.js';
import { ReadCapabilitiesSchema } from './a2a-remote.js';
import { JsonRpcIdSchema } from './rpc.js';

export const RpcErrorSchema = z.looseObject({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type RpcErrorReply = z.infer<typeof RpcErrorSchema>;

/** A reply carries `error` or `result`; a reply with neither is a null result. */
export const RpcReplySchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcIdSchema,
  result: z.unknown().optional(),
  error: RpcErrorSchema.optional(),
});
export type RpcReply = z.infer<typeof RpcReplySchema>;

const PermissionPendingSchema = z.looseObject({
  kind: z.literal('permission'),
  requestId: z.string(),
  toolCall: z.looseObject({
    title: z.string(),
    kind: z.string().optional(),
    rawInput: z.unknown().optional(),
    locations: z.array(z.looseObject({ path: z.string(), line: z.number().optional() })).optional(),
  }),
  options: z.array(z.looseObject({ optionId: z.string(), name: z.string(), kind: z.string() })),
  createdAt: z.string(),
  expiresAt: z.string(),
});

const DecisionPendingSchema = z.looseObject({
  kind: z.literal('decision'),
  question: z.string(),
  options: z.array(z.string()),
  recommend: z.string(),
  reason: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});

export const PendingSchema = z.discriminatedUnion('kind', [PermissionPendingSchema, DecisionPendingSchema]);
export type CliPending = z.infer<typeof PendingSchema>;

export const CliTaskSchema = TaskSchema.extend({
  metadata: z.looseObject({
    agent: z.string(),
    retryable: z.boolean().optional(),
    warning: z.string().optional(),
    pending: PendingSchema.optional(),
  }),
});
export type CliTask = z.infer<typeof CliTaskSchema>;

export const StatusUpdateSchema = z.looseObject({
  kind: z.literal('status-update'),
  taskId: z.string(),
  contextId: z.string(),
  status: TaskStatusSchema,
  final: z.boolean(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type StatusUpdate = z.infer<typeof StatusUpdateSchema>;

export const ArtifactUpdateSchema = z.looseObject({
  kind: z.literal('artifact-update'),
  taskId: z.string(),
  contextId: z.string(),
  artifact: ArtifactSchema,
  append: z.boolean().default(false),
  lastChunk: z.boolean().default(false),
});
export type ArtifactUpdate = z.infer<typeof ArtifactUpdateSchema>;

/** One SSE event's `result` on a v0.3 stream: the Task first, then updates. */
export const StreamResultSchema = z.union([CliTaskSchema, StatusUpdateSchema, ArtifactUpdateSchema]);
export type StreamResult = z.infer<typeof StreamResultSchema>;

/** A progress note an agent reported mid-turn (status-update metadata). */
export const ProgressNoteSchema = z.looseObject({
  event: z.literal('progress'),
  progress: z.looseObject({ kind: z.string(), text: z.string() }),
});

export const AgentSummarySchema = z.looseObject({
  name: z.string(),
  description: z.string().default(''),
  backend: z.string(),
  traits: z.looseObject({
    backend: z.string(),
    streaming: z.boolean(),
    inputRequired: z.boolean(),
    interruptible: z.boolean(),
    multiTurn: z.boolean(),
    limits: z.string().default(''),
  }),
  queue: z.looseObject({ waiting: z.number(), running: z.number(), needsAnswer: z.number() }),
  url: z.string(),
  cardUrl: z.string(),
});
export type AgentSummary = z.infer<typeof AgentSummarySchema>;

export const AgentListSchema = z.looseObject({ agents: z.array(AgentSummarySchema) });

/** `config/status` and `config/reload` (main/wiring/config-reload.ts ConfigState / ReloadResult). */
export const ConfigStateSchema = z.looseObject({
  path: z.string(),
  loadedAt: z.string(),
  error: z.string().optional(),
  restartNeeded: z.array(z.string()),
  added: z.array(z.string()).optional(),
  changed: z.array(z.string()).optional(),
  removed: z.array(z.string()).optional(),
  changedSettings: z.record(z.string(), z.array(z.string())).optional(),
  lastChanges: z
    .object({
      added: z.array(z.string()),
      changed: z.array(z.string()),
      removed: z.array(z.string()),
      changedSettings: z.record(z.string(), z.array(z.string())),
      at: z.string(),
    })
    .optional(),
});
export type ConfigStateReport = z.infer<typeof ConfigStateSchema>;

export const AgentCardSchema = z.looseObject({
  name: z.string(),
  description: z.string().default(''),
  version: z.string().optional(),
  capabilities: ReadCapabilitiesSchema,
  skills: z.array(z.looseObject({ id: z.string(), name: z.string(), description: z.string().default('') })).default([]),
});
export type AgentCard = z.infer<typeof AgentCardSchema>;

export const TaskPageSchema = z.looseObject({
  tasks: z.array(CliTaskSchema),
  nextPageToken: z.string().nullable().optional(),
  totalSize: z.number().int().optional(),
  pageSize: z.number().int().optional(),
});

export const PendingListSchema = z.looseObject({ tasks: z.array(CliTaskSchema) });

/** `agents/orchestrate` result: one entry per agent the work was fanned out to. */
export const OrchestrateResultSchema = z.looseObject({
  orchestrationId: z.string(),
  mode: z.enum(['all', 'first', 'best']),
  winner: z.string().optional(),
  note: z.string().optional(),
  results: z.array(
    z.looseObject({
      agent: z.string(),
      taskId: z.string().optional(),
      state: z.string(),
      text: z.string().optional(),
      reason: z.string().optional(),
      retryable: z.boolean().optional(),
    }),
  ),
});
export type OrchestrateResult = z.infer<typeof OrchestrateResultSchema>;

/** One event of `GET /events`: the task event and the task's agent and state (main/transport/http.ts streamFeed), as `contactor top` reads it. */
export const FeedMessageSchema = z.looseObject({
  event: z.looseObject({
    kind: z.string(),
    taskId: z.string(),
    status: z.looseObject({ state: z.enum(TASK_STATES), timestamp: z.string().optional() }).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    artifact: z
      .looseObject({ parts: z.array(z.looseObject({ kind: z.string(), text: z.string().optional() })) })
      .optional(),
    append: z.boolean().optional(),
  }),
});
