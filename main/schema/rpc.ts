/**
 * JSON-RPC envelope and the bridge's own methods (extensions beside the A2A ones in a2a.ts).
 */
import { z } from 'zod';
import { TASK_STATES } from '../domain/task.js';
import { ShorthandSendParamsSchema } from './a2a.js';
import { SendMetadataSchema } from './send-metadata.js';

export const JsonRpcIdSchema = z.union([z.string(), z.number(), z.null()]);

export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0', { error: 'jsonrpc must be "2.0"' }),
  id: JsonRpcIdSchema.optional(),
  method: z.string({ error: 'method must be a string' }).min(1, 'method must not be empty'),
  params: z.unknown().optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

/** The delegation fields of a bridge send and of `agents/orchestrate`, so loop guards hold across hops. */
export const DelegationParamsShape = {
  delegationDepth: ShorthandSendParamsSchema.shape.delegationDepth,
  visitedAgents: ShorthandSendParamsSchema.shape.visitedAgents,
  parentTaskId: z.string().min(1).optional(),
  callerAgent: z.string().min(1).optional(),
};
export type DelegationParams = z.infer<z.ZodObject<typeof DelegationParamsShape>>;

/** The shorthand plus what the CLI sends from inside an agent, so loop guards hold across hops. */
export const BridgeSendParamsSchema = ShorthandSendParamsSchema.extend({
  /** The agent's working directory for this task (absolute); default: the agent's configured cwd. */
  cwd: SendMetadataSchema.shape.cwd,
  parentTaskId: DelegationParamsShape.parentTaskId,
  callerAgent: DelegationParamsShape.callerAgent,
  files: z.array(z.object({ name: z.string().min(1), mimeType: z.string().optional(), bytes: z.string() })).optional(),
});
export type BridgeSendParams = z.infer<typeof BridgeSendParamsSchema>;

export const AnswerParamsSchema = z.object({
  taskId: z.string({ error: 'taskId is required' }).min(1, 'taskId must not be empty'),
  answer: z.union([z.string().min(1, 'answer must not be empty'), z.number().int().positive()], {
    error: 'answer is required: an option id or name, its number, yes/no, or free text',
  }),
  /** A name for the record, from the person only: kept as "person (token: NAME)"; refused from an agent's token. */
  answeredBy: z.string().min(1).max(100).optional(),
  /** The answer is free text even when it looks like an option number. */
  freeText: z.boolean().optional(),
});

export const AgentCardParamsSchema = z.object({
  agent: z.string({ error: 'agent is required (an agent name from agents/list)' }).min(1, 'agent must not be empty'),
});

export const EmptyParamsSchema = z.object({}).optional();

/** `pending/list`: the open questions, and optionally how the latest ones ended. */
export const PendingListParamsSchema = z
  .object({ history: z.number().int().min(0).max(200, 'history is at most 200').default(0) })
  .default({ history: 0 });

/** Bridge `tasks/list` (also the shape v1 `ListTasks` is converted into). */
export const ListTasksParamsSchema = z.object({
  contextId: z.string().optional(),
  agent: z.string().optional(),
  status: z.enum(TASK_STATES).optional(),
  states: z.array(z.enum(TASK_STATES)).optional(),
  statusTimestampAfter: z
    .string()
    .datetime({ offset: true, error: 'statusTimestampAfter must be an ISO-8601 time' })
    .optional(),
  pageSize: z.number().int().min(1, 'pageSize must be 1–100').max(100, 'pageSize must be 1–100').default(50),
  pageToken: z.string().optional(),
  historyLength: z.number().int().min(0, 'historyLength must be 0 or more').optional(),
  includeArtifacts: z.boolean().default(false),
});
export type ListTasksParams = z.infer<typeof ListTasksParamsSchema>;

/**
 * `agents/orchestrate`: one task per chosen agent (fan-out, like Hermes's `a2a_orchestrate`). `all`
 * and `best` wait for every child; `first` cancels the rest once one completes. The bridge never
 * judges content: `best` returns everything, and the caller applies its own rubric.
 */
export const OrchestrateParamsSchema = z
  .object({
    agents: z
      .array(z.string().min(1, 'agent names must not be empty'))
      .min(1, 'agents must name at least one agent')
      .optional(),
    /** Matches an agent's tags, its skills' tags, or its backend kind (case-insensitive). */
    capability: z.string().min(1, 'capability must not be empty').optional(),
    text: z.string({ error: 'text is required (what to send every agent)' }).min(1, 'text must not be empty'),
    mode: z.enum(['all', 'first', 'best'], { error: 'mode must be "all", "first" or "best"' }).default('all'),
    /** Makes the fan-out idempotent: each child is sent with this messageId (unique per agent). */
    messageId: z.string().min(1).optional(),
    contextId: z.string().min(1).optional(),
    /** false: return at once with the child task ids (then poll tasks/get). */
    blocking: z.boolean().default(true),
    ...DelegationParamsShape,
  })
  .refine((p) => (p.agents === undefined) !== (p.capability === undefined), {
    message: 'give either agents (a list of names) or capability (a tag, skill tag or backend kind), not both',
  });
export type OrchestrateParams = z.infer<typeof OrchestrateParamsSchema>;
