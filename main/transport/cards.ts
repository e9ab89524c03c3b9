/**
 * Agent cards (docs/contract.md#agent-cards): one per agent at /agents/<name>/.well-known/agent-card.json
 * and the bridge's own at /.well-known/agent-card.json. Pure builders; the HTTP layer serves them.
 *
 * Two renderings of one card, picked by `A2A-Version`:
 *   - `A2A-Version: 1.0` gets the pure v1 card (`AgentCardV1Schema`, strict like the a2a.proto JSON
 *     Schema). @a2a-js/sdk's resolver always asks with that header (dist/client/index.js
 *     `DefaultAgentCardResolver.resolve`).
 *   - No header (A2A v1 §3.6: absent means 0.3), `0.3`, or the 0.2-era /.well-known/agent.json get
 *     `toDualCard`: the v1 card plus the v0.3 members (`url`, `protocolVersion`, `preferredTransport`,
 *     `additionalInterfaces`, `security`, and `type`/`scheme` beside each v1 security scheme). Both
 *     conformance kits fetch the card without the header: the v0.3 kit needs `url` and
 *     `preferredTransport` (a2a-tck 0.3.x tests/mandatory/protocol/test_agent_card_mandatory.py,
 *     tck/agent_card_utils.py), and v1 clients find `supportedInterfaces`. It is what the reference SDKs
 *     serve there: a2a-python's `agent_card_to_dict` merges the same members into every card, and
 *     @a2a-js/sdk's `legacyAgentCardRouter` answers a header-less request with the v0.3 card plus
 *     `supportedInterfaces`. Parsers read it: a2a-python's `parse_agent_card` ignores unknown fields,
 *     @a2a-js/sdk's `isLegacyAgentCard` is false whenever `supportedInterfaces` is non-empty.
 *     The one reader it does not satisfy is the v1 kit's strict JSON Schema on that same header-less
 *     fetch (CARD-STRUCT-001 flags the v0.3 members), as it flags the reference SDK's card.
 */
import type { AgentTraits } from '../ports.js';
import type {
  AgentCardDual,
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

const UNTIL_ANSWERED = 'the task goes input-required until answered';

/**
 * What an agent that asks can ask, by kind: only ACP agents ask for tool permissions
 * (`session/request_permission`); a CLI or an HTTP API model asks only through the decision contract
 * (docs/contract.md#pending-questions), a CLI at the end of its run. One place says it, so the words and
 * the backend's `limits` never disagree.
 */
const ASKS: Readonly<Record<string, string>> = {
  acp: `can ask for permission to use a tool, or for a decision (${UNTIL_ANSWERED})`,
  subprocess_cli: `can ask for a decision at the end of a run, never for a tool permission (${UNTIL_ANSWERED})`,
  http_api: `can ask for a decision, never for a tool permission (${UNTIL_ANSWERED})`,
  a2a: `can ask for input (${UNTIL_ANSWERED})`,
};

const NEVER_ASKS: Readonly<Record<string, string>> = {
  // A remote peer's question is not relayed as a question: it ends the turn as the reply (backends/a2a).
  a2a: 'its questions are not relayed: a question it asks ends the turn as its reply',
};

/** The traits in plain words, for a reader who knows nothing about contactor. */
export function describeTraits(traits: AgentTraits): string {
  const clauses = [
    traits.inputRequired
      ? (ASKS[traits.backend] ?? `can ask for input (${UNTIL_ANSWERED})`)
      : (NEVER_ASKS[traits.backend] ?? 'never asks: it runs each turn to the end on its own'),
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

/** The agent a send to the root goes to when it names none, and why (runtime/registry.ts `defaultAgent`). */
export interface RootDefault {
  name: string;
  why: 'default_agent' | 'the only agent';
}

/**
 * The bridge's own card at /.well-known/agent-card.json: one skill per configured agent. With a default
 * agent (docs/contract.md#the-default-agent) the card names it first, in its description and as its first
 * skill, so a client that reads only this card knows who answers a send to its `url`.
 */
export function buildBridgeCard(
  input: { agents: readonly AgentProfile[]; defaultAgent?: RootDefault } & CardOptions,
): AgentCardV1 {
  const names = input.agents.map((a) => a.name);
  const endpoint = (name: string) => new URL(`agents/${encodeURIComponent(name)}`, withSlash(input.url)).href;
  const chosen = input.defaultAgent && input.agents.find((a) => a.name === input.defaultAgent!.name);
  const address = chosen
    ? ` A message sent here goes to the agent "${chosen.name}" (${input.defaultAgent!.why === 'default_agent' ? 'default_agent in config.yaml' : 'the only agent configured'}) unless metadata.agent names another;` +
      ' tasks/get, tasks/cancel and the streams work here for any task.'
    : ' Address one agent at its own endpoint, /agents/<name> (its card is at /agents/<name>/.well-known/agent-card.json),' +
      ' or send here with metadata.agent set.';
  const ordered = chosen ? [chosen, ...input.agents.filter((a) => a !== chosen)] : input.agents;
  return {
    name: 'contactor',
    description:
      'A local A2A bridge to the coding agents on this machine' +
      (names.length ? ` (${names.join(', ')})` : ' (none configured yet)') +
      `.${address}` +
      (chosen ? ' Each agent also has its own endpoint, /agents/<name>.' : '') +
      ' Results are not verified: every task carries metadata.requiresReview = true.',
    supportedInterfaces: interfaces(input.url),
    version: input.version,
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    ...security(input),
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: ordered.map((agent) => ({
      id: agent.name,
      name: agent.name,
      description:
        `${agentDescription(agent)} Endpoint: ${endpoint(agent.name)}` +
        (agent === chosen ? ` (and this root endpoint, as its default agent)` : ''),
      tags: tagsOf(agent, agent === chosen ? ['default'] : []),
    })),
  };
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/**
 * The card both versions read (`AgentCardDualSchema`): every v1 member kept as is, plus the v0.3
 * members taken from the card's own 0.3 interface — the same URL, since the method name and the
 * header pick the version there.
 */
export function toDualCard(card: AgentCardV1): AgentCardDual {
  const legacy =
    card.supportedInterfaces.find((i) => i.protocolVersion.startsWith('0.')) ?? card.supportedInterfaces[0];
  const url = legacy?.url ?? '';
  const bearer = card.securitySchemes?.bearer?.httpAuthSecurityScheme;
  // The bridge declares one scheme, its bearer token (`security` below); that is the only one rendered.
  const { securitySchemes: _v1Only, ...common } = card;
  return {
    ...common,
    ...(bearer
      ? {
          securitySchemes: {
            bearer: {
              httpAuthSecurityScheme: bearer,
              type: 'http' as const,
              scheme: 'bearer',
              ...(bearer.description ? { description: bearer.description } : {}),
            },
          },
          security: [{ bearer: [] }],
        }
      : {}),
    url,
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    // v0.3 §5.6: the list SHOULD repeat the main url/preferredTransport pair.
    additionalInterfaces: [{ url, transport: 'JSONRPC' }],
  };
}
