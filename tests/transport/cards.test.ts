import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentTraits } from '../../main/ports.js';
import { AgentCardDualSchema, AgentCardV03Schema, AgentCardV1Schema } from '../../main/schema/card.js';
import {
  AGENT_TRAITS_EXTENSION_URI,
  buildAgentCard,
  buildBridgeCard,
  describeTraits,
  toDualCard,
  type AgentProfile,
} from '../../main/transport/cards.js';

const cliTraits: AgentTraits = {
  backend: 'subprocess_cli',
  streaming: false,
  inputRequired: true,
  interruptible: false,
  multiTurn: false,
  limits: 'no file attachments; one run at a time',
};
const acpTraits: AgentTraits = {
  backend: 'acp',
  streaming: true,
  inputRequired: true,
  interruptible: true,
  multiTurn: true,
  limits: '',
};
const codex: AgentProfile = { name: 'codex', description: 'OpenAI Codex CLI', traits: cliTraits, tags: ['coding'] };
const claude: AgentProfile = {
  name: 'claude',
  description: 'Claude Code over ACP.',
  traits: acpTraits,
  skills: [
    { id: 'review', name: 'Code review', description: 'Reviews a diff', tags: ['review'], examples: ['review this'] },
  ],
};
const bearer = { bearer: { description: 'The token from bridge.json' } };

describe('agent card (v1 §4.4.1 AgentCard, §8.3 protocol declaration; docs/contract.md#agent-cards)', () => {
  const url = 'http://127.0.0.1:8791/agents/codex';
  const card = buildAgentCard({ ...codex, url, version: '0.1.0' });

  it('satisfies the strict v1 card schema (no v0.3 members)', () => {
    expect(AgentCardV1Schema.parse(card)).toEqual(card);
    for (const v03 of ['url', 'protocolVersion', 'preferredTransport', 'security', 'additionalInterfaces']) {
      expect(card).not.toHaveProperty(v03);
    }
  });

  it('the strict schema would catch a v0.3 leftover', () => {
    expect(AgentCardV1Schema.safeParse({ ...card, url, protocolVersion: '0.3.0' }).success).toBe(false);
  });

  it('declares JSON-RPC at its own URL for v1.0 first, then v0.3', () => {
    expect(card.supportedInterfaces).toEqual([
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
  });

  it('carries the traits extension and the fixed capabilities', () => {
    expect(card.capabilities).toEqual({
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        expect.objectContaining({
          uri: AGENT_TRAITS_EXTENSION_URI,
          params: {
            inputRequired: true,
            interruptible: false,
            contentVerified: false,
            multiTurn: false,
            backend: 'subprocess_cli',
          },
        }),
      ],
    });
  });

  it('states the traits, the limits and the review note in words', () => {
    expect(card.description).toMatch(/^OpenAI Codex CLI\. Runs as a subprocess CLI/);
    expect(card.description).toContain('Can ask for a decision at the end of a run, never for a tool permission');
    expect(card.description).toContain('cancel takes effect only once the current run ends');
    expect(card.description).toContain('the reply arrives in one piece when the run ends');
    // capabilities.streaming is true for every agent (SSE works): the words never say "no streaming".
    expect(card.description).not.toContain('no streaming');
    expect(card.description).toContain('no memory between messages');
    expect(card.description).toContain('Limits: no file attachments; one run at a time.');
    expect(card.description).toContain('Results are not verified');
    const acp = describeTraits(acpTraits);
    expect(acp).toMatch(/^Runs as an ACP agent/);
    expect(acp).toContain('Can ask for permission to use a tool, or for a decision');
    expect(acp).toContain('cancel stops its work mid-run');
    expect(acp).toContain('streams its reply');
    expect(acp).toContain('remembers the conversation per contextId');
    expect(acp).not.toContain('Limits');
    expect(describeTraits({ ...acpTraits, backend: 'http_api' })).toMatch(/^Runs on the "http_api" backend\./);
  });

  it('derives one skill when none is configured, tagged with the backend kind', () => {
    expect(card.skills).toEqual([
      { id: 'codex', name: 'codex', description: card.description, tags: ['subprocess_cli', 'coding'] },
    ]);
  });

  it('uses the configured skills when there are some', () => {
    const c = buildAgentCard({ ...claude, url: 'http://127.0.0.1:8791/agents/claude', version: '0.1.0' });
    expect(c.skills).toEqual([
      {
        id: 'review',
        name: 'Code review',
        description: 'Reviews a diff',
        tags: ['acp', 'review'],
        examples: ['review this'],
      },
    ]);
    expect(AgentCardV1Schema.safeParse(c).success).toBe(true);
  });

  it('declares a bearer token in the v1 shapes only', () => {
    const c = buildAgentCard({ ...codex, url, version: '0.1.0', securitySchemes: bearer });
    expect(c.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'The token from bridge.json' } },
    });
    expect(c.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
    expect(AgentCardV1Schema.safeParse(c).success).toBe(true);
    expect(buildAgentCard({ ...codex, url, version: '0.1.0' })).not.toHaveProperty('securitySchemes');
  });
});

describe('bridge card (the root card describes the bridge, one skill per agent)', () => {
  const card = buildBridgeCard({
    agents: [codex, claude],
    url: 'http://127.0.0.1:8791/',
    version: '0.1.0',
    securitySchemes: bearer,
  });

  it('satisfies the strict v1 card schema', () => {
    expect(AgentCardV1Schema.parse(card)).toEqual(card);
    expect(card.name).toBe('contactor');
  });

  it('has one skill per agent: id = agent name, traits summary, backend tag, endpoint', () => {
    expect(card.skills.map((s) => [s.id, s.tags])).toEqual([
      ['codex', ['subprocess_cli', 'coding']],
      ['claude', ['acp']],
    ]);
    expect(card.skills[0]?.description).toContain('OpenAI Codex CLI. Runs as a subprocess CLI');
    expect(card.skills[0]?.description).toContain('Endpoint: http://127.0.0.1:8791/agents/codex');
    expect(card.description).toContain('(codex, claude)');
  });

  it('is still a valid card with no agents configured', () => {
    const empty = buildBridgeCard({ agents: [], url: 'http://127.0.0.1:8791', version: '0.1.0' });
    expect(AgentCardV1Schema.safeParse(empty).success).toBe(true);
    expect(empty.description).toContain('none configured yet');
  });
});

describe('the card both versions read (served without A2A-Version, and for 0.3)', () => {
  const v1 = buildAgentCard({
    ...codex,
    url: 'http://127.0.0.1:8791/agents/codex',
    version: '0.1.0',
    securitySchemes: bearer,
  });
  const dual = toDualCard(v1);

  it('is the v1 card plus url, protocolVersion 0.3.0, preferredTransport, additionalInterfaces and v0.3 security', () => {
    expect(AgentCardDualSchema.parse(dual)).toEqual(dual);
    expect(dual).toMatchObject({
      url: 'http://127.0.0.1:8791/agents/codex',
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'http://127.0.0.1:8791/agents/codex', transport: 'JSONRPC' }],
      securitySchemes: {
        bearer: {
          httpAuthSecurityScheme: { scheme: 'Bearer', description: 'The token from bridge.json' },
          type: 'http',
          scheme: 'bearer',
          description: 'The token from bridge.json',
        },
      },
      security: [{ bearer: [] }],
    });
    const {
      url: _u,
      protocolVersion: _p,
      preferredTransport: _t,
      additionalInterfaces: _a,
      security: _s,
      ...rest
    } = dual;
    expect({
      ...rest,
      securitySchemes: { bearer: { httpAuthSecurityScheme: rest.securitySchemes?.bearer?.httpAuthSecurityScheme } },
    }).toEqual(v1);
  });

  it('reads as a v0.3 card (types.ts AgentCard) and is refused by the strict v1 schema, which has no v0.3 members', () => {
    expect(AgentCardV03Schema.safeParse(dual).success).toBe(true);
    expect(AgentCardV1Schema.safeParse(dual).success).toBe(false);
  });

  it('without a token scheme it declares none in either version', () => {
    const open = toDualCard(buildAgentCard({ ...codex, url: 'http://127.0.0.1:8791/agents/codex', version: '0.1.0' }));
    expect(AgentCardDualSchema.safeParse(open).success).toBe(true);
    expect(open).not.toHaveProperty('securitySchemes');
    expect(open).not.toHaveProperty('security');
  });
});

// ───────────── the official client against a static card server (@a2a-js/sdk 1.3.0) ─────────────

interface SeenRpc {
  path: string;
  version: string | undefined;
  method: string;
}

describe('@a2a-js/sdk client resolves the cards and picks JSON-RPC at the card URL', () => {
  let server: Server;
  let base: string;
  const cards = new Map<string, unknown>();
  const seen: SeenRpc[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      void (async () => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (req.method === 'GET') {
          const card = cards.get(path);
          res.writeHead(card ? 200 : 404, { 'content-type': 'application/json' });
          res.end(JSON.stringify(card ?? { error: 'no card' }));
          return;
        }
        const rpc = JSON.parse(await body(req)) as { id: number | string; method: string };
        seen.push({ path, version: header(req, 'a2a-version'), method: rpc.method });
        const result =
          rpc.method === 'GetTask'
            ? {
                id: 't1',
                contextId: 'c1',
                status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00.000Z' },
              }
            : { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'completed' } };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result }));
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agent = buildAgentCard({ ...codex, url: `${base}/agents/codex`, version: '0.1.0', securitySchemes: bearer });
    cards.set('/agents/codex/.well-known/agent-card.json', agent);
    cards.set(
      '/.well-known/agent-card.json',
      buildBridgeCard({ agents: [codex, claude], url: `${base}/`, version: '0.1.0' }),
    );
    cards.set(
      '/legacy/.well-known/agent-card.json',
      // A v0.3-only card: what an older server serves (no supportedInterfaces at all).
      v03Only(
        toDualCard({
          ...agent,
          supportedInterfaces: [{ url: `${base}/legacy-rpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
        }),
      ),
    );
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  });

  it('default client: per-agent card → v1.0 JSON-RPC POST to /agents/<name>', async () => {
    seen.length = 0;
    // The SDK resolves `.well-known/agent-card.json` relative to the base URL, so the base needs its
    // trailing slash (without it the card would be looked up under /agents/).
    const client = await new ClientFactory().createFromUrl(`${base}/agents/codex/`);
    const task = await client.getTask({ id: 't1', tenant: '' });
    expect(task.id).toBe('t1');
    expect(seen).toEqual([{ path: '/agents/codex', version: '1.0', method: 'GetTask' }]);
    const card = await client.getAgentCard();
    expect(card.name).toBe('codex');
    expect(card.securitySchemes['bearer']?.scheme?.$case).toBe('httpAuthSecurityScheme');
    expect(card.capabilities?.extensions[0]?.uri).toBe(AGENT_TRAITS_EXTENSION_URI);
  });

  it('default client: root card → POST / with v1.0', async () => {
    seen.length = 0;
    const client = await new ClientFactory().createFromUrl(`${base}/`);
    await client.getTask({ id: 't1', tenant: '' });
    expect(seen).toEqual([{ path: '/', version: '1.0', method: 'GetTask' }]);
  });

  it('legacyCompat client on the dual-stack card still prefers v1.0', async () => {
    seen.length = 0;
    const client = await legacyFactory().createFromUrl(`${base}/agents/codex/`);
    await client.getTask({ id: 't1', tenant: '' });
    expect(seen).toEqual([{ path: '/agents/codex', version: '1.0', method: 'GetTask' }]);
  });

  it('legacyCompat client on the v0.3 card speaks v0.3 at its url', async () => {
    seen.length = 0;
    const client = await legacyFactory().createFromUrl(`${base}/legacy/`);
    const task = await client.getTask({ id: 't1', tenant: '' });
    expect(task.id).toBe('t1');
    expect(seen).toEqual([{ path: '/legacy-rpc', version: '0.3', method: 'tasks/get' }]);
  });
});

function v03Only(card: Record<string, unknown>): Record<string, unknown> {
  const { supportedInterfaces: _v1, ...rest } = card;
  return rest;
}

function legacyFactory(): ClientFactory {
  const legacyCompat = { enabled: true };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
    }),
  );
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
