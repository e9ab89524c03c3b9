/**
 * Agent cards (docs/contract.md#agent-cards): one per agent at /agents/<name>/.well-known/agent-card.json
 * and the bridge's own at /.well-known/agent-card.json. Pure builders; the HTTP layer serves them.
 *
 * One card, v1-shaped, is served with and without `A2A-Version` (the issue: the header-less card must
 * satisfy the v1 schema). Why no v0.3 members (`url`, `protocolVersion`, `preferredTransport`,
 * `security`) ride along on it — checked in @a2a-js/sdk 1.3.0, dist/client/index.js:
 *   - `DefaultAgentCardResolver.resolve` fetches with `A2A-Version: 1.0` and `normalizeAgentCard` keeps
 *     unknown members (raw JSON, or `AgentCard.fromJSON` when the security shapes are ProtoJSON, which
 *     ignores them). With `legacyCompat`, `isLegacyAgentCard` is false whenever `supportedInterfaces` is
 *     non-empty, so v0.3 members are never even read.
 *   - `ClientFactory.createFromNormalizedAgentCard` keeps, per `protocolBinding`, the `1.0` interface
 *     over others, then walks `supportedInterfaces` in order; `JsonRpcTransportFactory.create` (with
 *     `legacyCompat`) speaks v0.3 only when the matching interface says `0.3`. So the JS client needs
 *     only `supportedInterfaces` and would tolerate the extras — but ProtoJSON parsers elsewhere do not:
 *     the official Python SDK's resolver (`ParseDict` without `ignore_unknown_fields`) and the a2a-tck's
 *     JSON Schema (`additionalProperties: false`) reject unknown members. Hence a pure v1 card; a v0.3
 *     client finds its endpoint in the `protocolVersion: "0.3"` interface (same URL: the method name and
 *     header pick the version). `toV03Card` gives the v0.3 shape for whoever asks for it explicitly.
 * Security: the v0.3 (`{type:"http"}`, `security`) and v1 (`{httpAuthSecurityScheme}`,
 * `securityRequirements`) shapes cannot share one card for the same reason, so each card carries its own.
 */
import type { AgentTraits } from '../ports.js';
import type {
  AgentCardV03,
  AgentCardV1,
  AgentSkillV1,
  SecurityRequirementV1,
  SecuritySchemeV1,
} from '../schema/card.js';

export const AGENT_TRAITS_EXTENSION_URI = 'urn:contactor:agent-traits:v1';
const MODES = ['text/plain'];

export interface SkillInput {
  id: string;
  name: string;
  description: string;
  tags?: string[];
  examples?: string[];
}

/** What the card needs to know about one configured agent. */
export interface AgentProfile {
  name: string;
  description?: string;
  traits: AgentTraits;
  /** Configured skills; when none, one skill named after the agent is derived. */
  skills?: SkillInput[];
  tags?: string[];
}

/** A bearer token is required on JSON-RPC (docs/contract.md#security-defaults); cards themselves need none. */
export interface BearerSecurity {
  bearer: { description?: string };
}

export interface CardOptions {
  /** The JSON-RPC endpoint: `http://127.0.0.1:8791/` or `http://127.0.0.1:8791/agents/<name>`. */
  url: string;
  version: string;
  securitySchemes?: BearerSecurity;
}

const BACKEND_WORDS: Readonly<Record<string, string>> = {
  acp: 'Runs as an ACP agent (one long-lived process, a session per conversation).',
  subprocess_cli: 'Runs as a subprocess CLI (one process per turn).',
};

/** The traits in plain words, for a reader who knows nothing about contactor. */
export function describeTraits(traits: AgentTraits): string {
  const clauses = [
    traits.inputRequired
      ? 'can ask for permission or a decision (the task goes input-required until answered)'
      : 'never asks: it runs each turn to the end on its own',
    // `interruptible` is exactly whether tasks/cancel stops the work in progress.
    traits.interruptible ? 'cancel stops its work mid-run' : 'cancel takes effect only once the current run ends',
    // Every task streams status over SSE (capabilities.streaming); this says how the reply text arrives.
    traits.streaming ? 'streams its reply as it is written' : 'the reply arrives in one piece when the run ends',
    traits.multiTurn
      ? 'remembers the conversation per contextId, so a follow-up needs only the new text'
      : 'no memory between messages: each one must carry its full context',
  ];
  const backend = BACKEND_WORDS[traits.backend] ?? `Runs on the "${traits.backend}" backend.`;
  const limits = traits.limits.trim() ? ` Limits: ${traits.limits.trim().replace(/\.$/, '')}.` : '';
  const first = clauses.join('; ');
  return (
    `${backend} ${first.charAt(0).toUpperCase()}${first.slice(1)}.${limits}` +
    ' Results are not verified: every task carries metadata.requiresReview = true.'
  );
}

function agentDescription(agent: AgentProfile): string {
  const own = agent.description?.trim() || `The local agent "${agent.name}".`;
  return `${/[.!?]$/.test(own) ? own : `${own}.`} ${describeTraits(agent.traits)}`;
}

function tagsOf(agent: AgentProfile, extra: readonly string[] = []): string[] {
  return [...new Set([agent.traits.backend, ...(agent.tags ?? []), ...extra])];
}

function skillToV1(agent: AgentProfile, skill: SkillInput): AgentSkillV1 {
  return {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: tagsOf(agent, skill.tags),
    ...(skill.examples?.length ? { examples: skill.examples } : {}),
  };
}

function security(options: CardOptions): {
  securitySchemes?: Record<string, SecuritySchemeV1>;
  securityRequirements?: SecurityRequirementV1[];
} {
  const bearer = options.securitySchemes?.bearer;
  if (!bearer) return {};
  return {
    securitySchemes: {
      bearer: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          ...(bearer.description ? { description: bearer.description } : {}),
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  };
}

/** v1 first (clients take the first they support), then the same URL for v0.3 clients. */
function interfaces(url: string): AgentCardV1['supportedInterfaces'] {
  return [
    { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ];
}

/** One agent's card, served at /agents/<name>/.well-known/agent-card.json. */
export function buildAgentCard(input: AgentProfile & CardOptions): AgentCardV1 {
  const { traits } = input;
  const skills = input.skills?.length
    ? input.skills.map((s) => skillToV1(input, s))
    : [{ id: input.name, name: input.name, description: agentDescription(input), tags: tagsOf(input) }];
  return {
    name: input.name,
    description: agentDescription(input),
    supportedInterfaces: interfaces(input.url),
    version: input.version,
    capabilities: {
      // The bridge streams every task (status updates at least); traits.streaming says whether text
      // arrives in chunks, which the description and the extension state.
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        {
          uri: AGENT_TRAITS_EXTENSION_URI,
          description: 'What this agent can and cannot do, declared by the contactor bridge.',
          required: false,
          params: {
            inputRequired: traits.inputRequired,
            interruptible: traits.interruptible,
            contentVerified: false,
            multiTurn: traits.multiTurn,
            backend: traits.backend,
          },
        },
      ],
    },
    ...security(input),
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills,
  };
}

/** The bridge's own card at /.well-known/agent-card.json: one skill per configured agent. */
export function buildBridgeCard(input: { agents: readonly AgentProfile[] } & CardOptions): AgentCardV1 {
  const names = input.agents.map((a) => a.name);
  const endpoint = (name: string) => new URL(`agents/${encodeURIComponent(name)}`, withSlash(input.url)).href;
  return {
    name: 'contactor',
    description:
      'A local A2A bridge to the coding agents on this machine' +
      (names.length ? ` (${names.join(', ')})` : ' (none configured yet)') +
      '. Address one agent at its own endpoint, /agents/<name> (its card is at /agents/<name>/.well-known/agent-card.json),' +
      ' or send here with metadata.agent set. Results are not verified: every task carries metadata.requiresReview = true.',
    supportedInterfaces: interfaces(input.url),
    version: input.version,
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    ...security(input),
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: input.agents.map((agent) => ({
      id: agent.name,
      name: agent.name,
      description: `${agentDescription(agent)} Endpoint: ${endpoint(agent.name)}`,
      tags: tagsOf(agent),
    })),
  };
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/**
 * The same card in the v0.3 shape (types.ts `AgentCard`), for a caller that explicitly asks for 0.3
 * (e.g. `A2A-Version: 0.3`, or the 0.2.x path /.well-known/agent.json).
 */
export function toV03Card(card: AgentCardV1): AgentCardV03 {
  const legacy =
    card.supportedInterfaces.find((i) => i.protocolVersion.startsWith('0.')) ?? card.supportedInterfaces[0];
  const bearer = card.securitySchemes?.bearer?.httpAuthSecurityScheme;
  const { extensions } = card.capabilities;
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url: legacy?.url ?? '',
    preferredTransport: 'JSONRPC',
    version: card.version,
    capabilities: {
      streaming: card.capabilities.streaming ?? false,
      pushNotifications: card.capabilities.pushNotifications ?? false,
      ...(extensions?.length ? { extensions } : {}),
    },
    ...(bearer
      ? {
          securitySchemes: {
            bearer: {
              type: 'http' as const,
              scheme: 'bearer',
              ...(bearer.description ? { description: bearer.description } : {}),
            },
          },
          security: [{ bearer: [] }],
        }
      : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ securityRequirements: _s, ...skill }) => skill),
    supportsAuthenticatedExtendedCard: false,
  };
}
