/**
 * The cards as the two conformance kits and @a2a-js/sdk read them, from the real bridge.
 *
 * Both kits fetch `/.well-known/agent-card.json` without `A2A-Version` (A2A v1 §3.6: absent means 0.3):
 * the v0.3 kit then needs `url` and a transport, the v1 kit `supportedInterfaces`. The card served there
 * carries both (transport/cards.ts `toDualCard`). The kits are Python; their card checks are ported
 * here faithfully, each citing its file and function in github.com/a2aproject/a2a-tck:
 *   - v0.3: branch 0.3.x (eb1f804) — tests/mandatory/protocol/test_agent_card_mandatory.py,
 *     tests/mandatory/protocol/test_agent_card.py, tests/mandatory/security/test_agent_card_security.py,
 *     tck/agent_card_utils.py;
 *   - v1: branch 1.0-dev (357c4a8) — tests/compatibility/agent_card/test_agent_card.py. Its schema check
 *     (CARD-STRUCT-001, the a2a.proto JSON Schema with additionalProperties: false) is
 *     `AgentCardV1Schema`, which the card for `A2A-Version: 1.0` satisfies; on the header-less card the
 *     kit's strict schema flags the v0.3 members, as it flags the reference SDK's card (docs/contract.md#agent-cards).
 * Then real clients: @a2a-js/sdk 1.3's v1 client, and its v0.3 card parser and transport given only the
 * v0.3 members of the header-less card, each send a message and get the agent's reply.
 */

import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  createAuthenticatingFetchWithRetry,
} from '@a2a-js/sdk/client';
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCardDualSchema, AgentCardV1Schema, AgentInterfaceV1Schema } from '../../main/schema/card.js';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { sdkSend, type RecordedCall } from './sdk-client.js';
import type { Wire } from './wire.js';

let tb: TestBridge;
beforeAll(async () => {
  tb = await startTestBridge({ agents: { echo: echoAgent() }, isolatedEnv: true });
});
afterAll(() => tb?.cleanup());

const PATHS = ['/.well-known/agent-card.json', '/agents/echo/.well-known/agent-card.json'];

/** What both kits do: a plain GET, no A2A-Version (v0.3 agent_card_utils.fetch_agent_card; v1 conftest.agent_card). */
async function headerless(path: string): Promise<Wire> {
  const res = await fetch(`${tb.url}${path}`);
  expect(res.status).toBe(200);
  return res.json();
}

// ───────────── v0.3 kit (a2a-tck 0.3.x) ─────────────

const V03_REQUIRED = [
  'capabilities',
  'defaultInputModes',
  'defaultOutputModes',
  'description',
  'name',
  'protocolVersion',
  'skills',
  'url',
  'version',
];

/** tck/agent_card_utils.py `_parse_transport_type`. */
function transportType(name: string): 'JSONRPC' | 'GRPC' | 'REST' | undefined {
  const n = name.toLowerCase().trim();
  if (['jsonrpc', 'json-rpc', 'jsonrpc2.0', 'json-rpc-2.0', 'rpc'].includes(n)) return 'JSONRPC';
  if (['grpc', 'grpc-web', 'protobuf'].includes(n)) return 'GRPC';
  if (['rest', 'http', 'http+json', 'restful', 'http-json'].includes(n)) return 'REST';
  return undefined;
}

/** tck/agent_card_utils.py `get_supported_transports`. */
function supportedTransports(card: Wire): Set<string> {
  const out = new Set<string>();
  const preferred = typeof card.preferredTransport === 'string' ? transportType(card.preferredTransport) : undefined;
  if (preferred) out.add(preferred);
  for (const i of Array.isArray(card.additionalInterfaces) ? card.additionalInterfaces : []) {
    const t = transportType(i.transport ?? i.type ?? '');
    if (t) out.add(t);
  }
  return out;
}

/** tck/agent_card_utils.py `get_transport_endpoints` (no `endpoint` member: the `url` under preferredTransport). */
function transportEndpoints(card: Wire): Map<string, string> {
  const out = new Map<string, string>();
  const preferred = card.preferredTransport ? transportType(card.preferredTransport) : undefined;
  if (typeof card.url === 'string' && preferred) out.set(preferred, card.url);
  for (const i of Array.isArray(card.additionalInterfaces) ? card.additionalInterfaces : []) {
    const t = transportType(i.transport ?? i.type ?? '');
    const endpoint = i.endpoint ?? i.url;
    if (t && typeof endpoint === 'string') out.set(t, endpoint);
  }
  return out;
}

/** tck/agent_card_utils.py `validate_transport_consistency`. */
function transportConsistency(card: Wire): string[] {
  const supported = supportedTransports(card);
  if (supported.size === 0) return ['No supported transports declared in Agent Card'];
  const endpoints = transportEndpoints(card);
  return [...supported].filter((t) => !endpoints.has(t)).map((t) => `Transport ${t} declared but no endpoint provided`);
}

describe.each(PATHS)('v0.3 kit reading %s without A2A-Version', (path) => {
  it('test_agent_card_mandatory_fields: every required field, none null', async () => {
    const card = await headerless(path);
    for (const field of V03_REQUIRED) {
      expect(card, field).toHaveProperty(field);
      expect(card[field], field).not.toBeNull();
    }
  });

  it('test_mandatory_field_types and test_agent_card_basic_info_mandatory: types, non-empty, url is http(s)', async () => {
    const card = await headerless(path);
    for (const f of ['name', 'description', 'version', 'url']) {
      expect(typeof card[f], f).toBe('string');
      expect(card[f].trim(), f).not.toBe('');
    }
    expect(typeof card.capabilities).toBe('object');
    expect(card.url).toMatch(/^https?:\/\/[^\s/$.?#].[^\s]*$/);
  });

  it('test_agent_card_skills_mandatory and test_agent_card_input_output_modes_mandatory', async () => {
    const card = await headerless(path);
    expect(card.skills.length).toBeGreaterThan(0);
    for (const skill of card.skills) {
      for (const f of ['id', 'name', 'description', 'tags']) expect(skill[f] ?? null, f).not.toBeNull();
    }
    for (const modes of [card.defaultInputModes, card.defaultOutputModes]) {
      for (const m of modes) expect(typeof m === 'string' && m.trim() !== '').toBe(true);
    }
  });

  it('test_security_scheme_consistency: each scheme has an OpenAPI type, an http one its scheme', async () => {
    const card = await headerless(path);
    const schemes = Object.entries(card.securitySchemes ?? {}) as [string, Wire][];
    expect(schemes.length).toBeGreaterThan(0);
    for (const [name, scheme] of schemes) {
      expect(['apiKey', 'http', 'oauth2', 'openIdConnect', 'mutualTLS'], name).toContain(scheme.type);
      if (scheme.type === 'http') expect(['basic', 'bearer', 'digest']).toContain(scheme.scheme.toLowerCase());
    }
  });

  it('validate_transport_consistency and get_transport_endpoints: JSON-RPC at the card url, which answers 0.3', async () => {
    const card = await headerless(path);
    expect(transportConsistency(card)).toEqual([]);
    expect(transportEndpoints(card).get('JSONRPC')).toBe(card.url);
    const res = await fetch(card.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'absent' } }),
    });
    expect(((await res.json()) as Wire).error).toMatchObject({
      code: -32001,
      message: expect.stringMatching(/not found/),
    });
  });
});

// ───────────── v1 kit (a2a-tck 1.0-dev) ─────────────

const V1_REQUIRED = [
  'name',
  'description',
  'version',
  'capabilities',
  'skills',
  'supportedInterfaces',
  'defaultInputModes',
  'defaultOutputModes',
];

describe.each(PATHS)('v1 kit reading %s', (path) => {
  it('CARD-STRUCT-001 test_required_fields_present, CARD-PROTO-001/002, BIND-FIELD-001 on the header-less card', async () => {
    const card = await headerless(path);
    for (const f of V1_REQUIRED) expect(card, f).toHaveProperty(f);
    expect(card.supportedInterfaces.length).toBeGreaterThan(0);
    for (const iface of card.supportedInterfaces) expect(AgentInterfaceV1Schema.safeParse(iface).success).toBe(true);
    const bindings = new Set(card.supportedInterfaces.map((i: Wire) => i.protocolBinding));
    expect([...bindings].every((b) => ['JSONRPC', 'GRPC', 'HTTP+JSON'].includes(b as string))).toBe(true);
  });

  it('CARD-STRUCT-001 test_agent_card_validates_against_schema: the A2A-Version 1.0 card is the strict v1 card, and the header-less card is it plus only the v0.3 members', async () => {
    const v1 = (await (await fetch(`${tb.url}${path}`, { headers: { 'A2A-Version': '1.0' } })).json()) as Wire;
    const parsed = AgentCardV1Schema.safeParse(v1);
    expect(parsed.success, parsed.error?.message).toBe(true);
    const dual = await headerless(path);
    const checked = AgentCardDualSchema.safeParse(dual);
    expect(checked.success, checked.error?.message).toBe(true);
    const {
      url: _u,
      protocolVersion: _p,
      preferredTransport: _t,
      additionalInterfaces: _a,
      security: _s,
      ...rest
    } = dual;
    const bearer = rest.securitySchemes.bearer;
    expect({ ...rest, securitySchemes: { bearer: { httpAuthSecurityScheme: bearer.httpAuthSecurityScheme } } }).toEqual(
      v1,
    );
  });
});

// ───────────── @a2a-js/sdk 1.3 clients, card only ─────────────

function recordingFetch(calls: RecordedCall[]): typeof fetch {
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    calls.push({ path: url.pathname, version: headers.get('a2a-version'), method: body?.method });
    return fetch(input, init);
  };
  return createAuthenticatingFetchWithRetry(recording, {
    headers: async () => ({ Authorization: `Bearer ${tb.token}` }),
    shouldRetryWithHeaders: async () => undefined,
  });
}

function factory(fetchImpl: typeof fetch, legacy: boolean): ClientFactory {
  const legacyCompat = { enabled: legacy };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
    }),
  );
}

async function replyText(result: Wire): Promise<string> {
  return JSON.stringify(result);
}

describe('@a2a-js/sdk sends a message using only the card', () => {
  it('v1 client: resolves the card (it asks with A2A-Version: 1.0) and sends with SendMessage', async () => {
    const calls: RecordedCall[] = [];
    const client = await factory(recordingFetch(calls), false).createFromUrl(`${tb.url}/agents/echo/`);
    const result = await client.sendMessage(sdkSend('via the v1 card'));
    expect(await replyText(result)).toContain('echo: via the v1 card');
    expect(calls.at(-1)).toEqual({ path: '/agents/echo', version: '1.0', method: 'SendMessage' });
  });

  it('v0.3: the SDK parses only the v0.3 members of the header-less card (parseLegacyAgentCard) and sends message/send to its url', async () => {
    const card = await headerless('/agents/echo/.well-known/agent-card.json');
    // A 0.3 client knows nothing of supportedInterfaces: what it reads is url, protocolVersion,
    // preferredTransport, additionalInterfaces and the OpenAPI-typed security scheme.
    const { supportedInterfaces: _v1, ...v03Members } = card;
    const parsed = parseLegacyAgentCard(v03Members);
    expect(parsed.supportedInterfaces[0]).toMatchObject({
      url: `${tb.url}/agents/echo`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '0.3.0',
    });
    expect(parsed.securitySchemes['bearer']?.scheme?.$case).toBe('httpAuthSecurityScheme');
    const calls: RecordedCall[] = [];
    const client = await factory(recordingFetch(calls), true).createFromAgentCard(parsed);
    const result = await client.sendMessage(sdkSend('via the v0.3 card'));
    expect(await replyText(result)).toContain('echo: via the v0.3 card');
    expect(calls.at(-1)).toMatchObject({ path: '/agents/echo', method: 'message/send' });
  });

  it("the SDK's own normalizer on the header-less card (v1 and legacy mode) keeps supportedInterfaces, and the client sends", async () => {
    const card = await headerless('/agents/echo/.well-known/agent-card.json');
    for (const legacy of [false, true]) {
      const calls: RecordedCall[] = [];
      const fetchImpl = recordingFetch(calls);
      const normalized = new DefaultAgentCardResolver({
        fetchImpl,
        legacyCompat: { enabled: legacy },
      }).normalizeAgentCard(structuredClone(card));
      const client = await factory(fetchImpl, legacy).createFromAgentCard(normalized);
      const result = await client.sendMessage(sdkSend(`normalized, legacy ${legacy}`));
      expect(await replyText(result)).toContain(`echo: normalized, legacy ${legacy}`);
      expect(calls.at(-1)).toEqual({ path: '/agents/echo', version: '1.0', method: 'SendMessage' });
    }
  });
});
