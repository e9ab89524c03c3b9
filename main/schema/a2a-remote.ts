/**
 * What a remote A2A peer sends back to the `a2a` backend: its card (either version, read leniently:
 * a card is the peer's own claim and only a few members matter here), JSON-RPC responses, and the
 * v0.3 stream events (v1 ones are StreamResponseV1Schema in a2a-v1.ts).
 */
import { z } from 'zod';
import { ArtifactSchema, MessageSchema, MetadataSchema, TaskSchema, TaskStatusSchema } from './a2a.js';
import { JsonRpcIdSchema } from './rpc.js';

/** A card's capabilities as a reader takes them (a peer's card here, the bridge's in the CLI): lenient, absent = none. */
export const ReadCapabilitiesSchema = z
  .looseObject({
    streaming: z.boolean().optional(),
    extensions: z
      .array(z.looseObject({ uri: z.string(), params: z.record(z.string(), z.unknown()).optional() }))
      .optional(),
  })
  .default({});

export const PeerCardSchema = z.looseObject({
  name: z.string().default('remote agent'),
  description: z.string().optional(),
  /** v0.3: the primary endpoint, its transport and version. */
  url: z.string().optional(),
  protocolVersion: z.string().optional(),
  preferredTransport: z.string().optional(),
  additionalInterfaces: z.array(z.looseObject({ url: z.string(), transport: z.string() })).optional(),
  /** v1: endpoints in preference order. */
  supportedInterfaces: z
    .array(z.looseObject({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string().optional() }))
    .optional(),
  capabilities: ReadCapabilitiesSchema,
});
export type PeerCard = z.infer<typeof PeerCardSchema>;

export const JsonRpcReplySchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: JsonRpcIdSchema.optional(),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
});
export type JsonRpcReply = z.infer<typeof JsonRpcReplySchema>;

export const StatusUpdateV03Schema = z.looseObject({
  kind: z.literal('status-update'),
  taskId: z.string(),
  contextId: z.string(),
  status: TaskStatusSchema,
  final: z.boolean().optional(),
  metadata: MetadataSchema.optional(),
});

export const ArtifactUpdateV03Schema = z.looseObject({
  kind: z.literal('artifact-update'),
  taskId: z.string(),
  contextId: z.string(),
  artifact: ArtifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
});

/** A v0.3 send result or stream event: the `kind` member says which. */
export const ResultV03Schema = z.discriminatedUnion('kind', [
  TaskSchema,
  MessageSchema,
  StatusUpdateV03Schema,
  ArtifactUpdateV03Schema,
]);
export type ResultV03 = z.infer<typeof ResultV03Schema>;
