/**
 * Agent card shapes: v1.0 (ProtoJSON of `AgentCard`, a2a.proto), v0.3 (types.ts), and the card both read.
 *
 * The v1 schema is strict on purpose: the JSON Schema generated from a2a.proto (the one the a2a-tck
 * validates cards with) has `additionalProperties: false`, and ProtoJSON parsers reject unknown members
 * by default. It is the card for `A2A-Version: 1.0`. Without the header (0.3 by A2A v1 §3.6) the bridge
 * serves `AgentCardDualSchema`: the same members plus the v0.3 ones, exactly those and nothing else
 * (transport/cards.ts says who reads which).
 */
import { z } from 'zod';

export const PROTOCOL_BINDINGS = ['JSONRPC', 'GRPC', 'HTTP+JSON'] as const;

export const AgentInterfaceV1Schema = z.strictObject({
  url: z.string().min(1),
  protocolBinding: z.enum(PROTOCOL_BINDINGS),
  /** `Major.Minor` only: patch numbers must not influence negotiation (v1 §3.6). */
  protocolVersion: z.string().regex(/^\d+\.\d+$/, 'protocolVersion is Major.Minor, e.g. "1.0"'),
  tenant: z.string().optional(),
});

export const AgentExtensionSchema = z.strictObject({
  uri: z.string().min(1),
  description: z.string().optional(),
  required: z.boolean().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const AgentCapabilitiesV1Schema = z.strictObject({
  streaming: z.boolean().optional(),
  pushNotifications: z.boolean().optional(),
  extendedAgentCard: z.boolean().optional(),
  extensions: z.array(AgentExtensionSchema).optional(),
});

export const SecurityRequirementV1Schema = z.strictObject({
  schemes: z.record(z.string(), z.strictObject({ list: z.array(z.string()) })),
});

const SCHEME_MEMBERS = [
  'apiKeySecurityScheme',
  'httpAuthSecurityScheme',
  'oauth2SecurityScheme',
  'openIdConnectSecurityScheme',
  'mtlsSecurityScheme',
] as const;

const HttpAuthSecuritySchemeV1Schema = z.strictObject({
  scheme: z.string().min(1),
  bearerFormat: z.string().optional(),
  description: z.string().optional(),
});

/** A proto oneof: exactly one member. Only the HTTP auth scheme is spelled out (the bridge's bearer). */
export const SecuritySchemeV1Schema = z
  .strictObject({
    apiKeySecurityScheme: z.record(z.string(), z.unknown()).optional(),
    httpAuthSecurityScheme: HttpAuthSecuritySchemeV1Schema.optional(),
    oauth2SecurityScheme: z.record(z.string(), z.unknown()).optional(),
    openIdConnectSecurityScheme: z.record(z.string(), z.unknown()).optional(),
    mtlsSecurityScheme: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((s) => SCHEME_MEMBERS.filter((k) => s[k] !== undefined).length === 1, {
    message: 'a security scheme holds exactly one of ' + SCHEME_MEMBERS.join(', '),
  });

/**
 * A skill has the same members in v1 (`AgentSkill`, a2a.proto) and v0.3 (types.ts) but for per-skill
 * security, spelled differently (v1 `securityRequirements`, v0.3 `security`) and never set by the bridge.
 * The v1 form adds its spelling and is strict like the rest of the v1 card.
 */
export const AgentSkillSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().min(1),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
});

export const AgentSkillV1Schema = z.strictObject({
  ...AgentSkillSchema.shape,
  securityRequirements: z.array(SecurityRequirementV1Schema).optional(),
});

export const AgentCardV1Schema = z.strictObject({
  name: z.string().min(1),
  description: z.string().min(1),
  /** In preference order; clients take the first they support (v1 §8.3.1). */
  supportedInterfaces: z.array(AgentInterfaceV1Schema).min(1, 'supportedInterfaces must not be empty'),
  provider: z.strictObject({ url: z.string(), organization: z.string() }).optional(),
  version: z.string().min(1),
  documentationUrl: z.string().optional(),
  capabilities: AgentCapabilitiesV1Schema,
  securitySchemes: z.record(z.string(), SecuritySchemeV1Schema).optional(),
  securityRequirements: z.array(SecurityRequirementV1Schema).optional(),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(AgentSkillV1Schema),
  signatures: z.array(z.record(z.string(), z.unknown())).optional(),
  iconUrl: z.string().optional(),
});

export type AgentInterfaceV1 = z.infer<typeof AgentInterfaceV1Schema>;
export type AgentExtension = z.infer<typeof AgentExtensionSchema>;
export type AgentSkillV1 = z.infer<typeof AgentSkillV1Schema>;
export type SecuritySchemeV1 = z.infer<typeof SecuritySchemeV1Schema>;
export type SecurityRequirementV1 = z.infer<typeof SecurityRequirementV1Schema>;
export type AgentCardV1 = z.infer<typeof AgentCardV1Schema>;

// ───────────────────────── v0.3 ─────────────────────────

export const SecuritySchemeV03Schema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('http'),
    scheme: z.string().min(1),
    bearerFormat: z.string().optional(),
    description: z.string().optional(),
  }),
  z.object({ type: z.literal('apiKey'), in: z.enum(['query', 'header', 'cookie']), name: z.string() }),
  z.object({ type: z.literal('oauth2'), flows: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('openIdConnect'), openIdConnectUrl: z.string() }),
  z.object({ type: z.literal('mutualTLS') }),
]);

/** v0.3 card (types.ts `AgentCard`); v0.3 allows extra members, so this one is not strict. */
export const AgentCardV03Schema = z.object({
  protocolVersion: z.string().min(1),
  name: z.string().min(1),
  description: z.string().min(1),
  url: z.string().min(1),
  preferredTransport: z.enum(PROTOCOL_BINDINGS).optional(),
  additionalInterfaces: z.array(z.object({ url: z.string(), transport: z.enum(PROTOCOL_BINDINGS) })).optional(),
  version: z.string().min(1),
  capabilities: z.object({
    streaming: z.boolean().optional(),
    pushNotifications: z.boolean().optional(),
    stateTransitionHistory: z.boolean().optional(),
    extensions: z.array(AgentExtensionSchema).optional(),
  }),
  securitySchemes: z.record(z.string(), SecuritySchemeV03Schema).optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(AgentSkillSchema),
  supportsAuthenticatedExtendedCard: z.boolean().optional(),
});

export type AgentSkill = z.infer<typeof AgentSkillSchema>;
export type AgentCardV03 = z.infer<typeof AgentCardV03Schema>;

// ───────────────── the card both versions read ─────────────────

/**
 * The bearer scheme both versions read: the v1 oneof member (`httpAuthSecurityScheme`) beside the v0.3
 * OpenAPI members (`type: "http"`, `scheme`), as the reference Python SDK merges them
 * (a2a-python src/a2a/server/request_handlers/response_helpers.py `agent_card_to_dict`).
 */
export const SecuritySchemeDualSchema = z.strictObject({
  httpAuthSecurityScheme: HttpAuthSecuritySchemeV1Schema,
  type: z.literal('http'),
  scheme: z.string().min(1),
  bearerFormat: z.string().optional(),
  description: z.string().optional(),
});

/**
 * The card served without `A2A-Version` (which A2A v1 §3.6 reads as 0.3) and for 0.3: every v1 member,
 * plus the v0.3 members a 0.3 client finds its endpoint and token by (types.ts `AgentCard`: `url`,
 * `protocolVersion`, `preferredTransport`, `additionalInterfaces`, `security`). Strict like the v1 card:
 * nothing else rides along. The v1-only card (`AgentCardV1Schema`) answers `A2A-Version: 1.0`.
 */
export const AgentCardDualSchema = z.strictObject({
  ...AgentCardV1Schema.shape,
  securitySchemes: z.record(z.string(), SecuritySchemeDualSchema).optional(),
  url: z.string().min(1),
  protocolVersion: z.string().regex(/^0\.3\.\d+$/, 'the v0.3 protocolVersion, e.g. "0.3.0"'),
  preferredTransport: z.enum(PROTOCOL_BINDINGS),
  additionalInterfaces: z.array(z.strictObject({ url: z.string().min(1), transport: z.enum(PROTOCOL_BINDINGS) })),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
});

export type SecuritySchemeDual = z.infer<typeof SecuritySchemeDualSchema>;
export type AgentCardDual = z.infer<typeof AgentCardDualSchema>;
