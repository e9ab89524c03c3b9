/**
 * Agent discovery: v1 §8 (well-known card, supportedInterfaces, caching) and v0.3 §5. Each local agent
 * is a plain A2A agent at /agents/<name> with its own card; the root card describes the bridge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCardDualSchema, AgentCardV03Schema, AgentCardV1Schema } from '../../main/schema/card.js';
import { echoAgent, fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { headersFor, userMessage, type Wire } from './wire.js';

let tb: TestBridge;

beforeAll(async () => {
  tb = await startTestBridge({ agents: { echo: echoAgent(), fake: fakeAcpAgent() }, isolatedEnv: true });
});
afterAll(async () => {
  await tb.cleanup();
});

async function card(path: string, version?: string): Promise<{ status: number; headers: Headers; body: Wire }> {
  const res = await fetch(`${tb.url}${path}`, { headers: headersFor(version) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const CARD = (agent: string) => `/agents/${agent}/.well-known/agent-card.json`;

describe('v1 §8 agent discovery', () => {
  it('v1 §8.2 discovery: each agent has its own card at /agents/<name>/.well-known/agent-card.json, no token needed', async () => {
    for (const agent of ['echo', 'fake']) {
      const { status, body } = await card(CARD(agent));
      expect(status).toBe(200);
      expect(body.name).toBe(agent);
    }
    expect((await card(CARD('nobody'))).status).toBe(404);
  });

  it('v1 §8.3 card: the card for A2A-Version 1.0 satisfies the strict v1 card schema; without the header (v1 §3.6: 0.3) it is the card both versions read', async () => {
    for (const path of [CARD('echo'), CARD('fake'), '/.well-known/agent-card.json']) {
      const parsed = AgentCardV1Schema.safeParse((await card(path, '1.0')).body);
      expect(parsed.success, `${path} 1.0: ${parsed.error?.message}`).toBe(true);
      for (const version of [undefined, '0.3']) {
        const dual = AgentCardDualSchema.safeParse((await card(path, version)).body);
        expect(dual.success, `${path} ${version ?? 'no header'}: ${dual.error?.message}`).toBe(true);
      }
    }
  });

  it("v1 §8.3.1 supportedInterfaces: the preferred interface is the agent's own URL, JSON-RPC 1.0, then the same URL for 0.3", async () => {
    const { body } = await card(CARD('echo'));
    expect(body.supportedInterfaces).toEqual([
      { url: `${tb.url}/agents/echo`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${tb.url}/agents/echo`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
  });

  it('v1 §8.3.1 supportedInterfaces: each advertised interface answers in its protocol version', async () => {
    const { body } = await card(CARD('echo'));
    for (const iface of body.supportedInterfaces as { url: string; protocolVersion: '1.0' | '0.3' }[]) {
      const v = iface.protocolVersion;
      const res = await fetch(iface.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}`, 'A2A-Version': v },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: v === '1.0' ? 'SendMessage' : 'message/send',
          params: { message: userMessage(v, 'via card') },
        }),
      });
      const reply = (await res.json()) as Wire;
      const task = v === '1.0' ? reply.result.task : reply.result;
      expect(JSON.stringify(task.artifacts)).toContain('echo: via card');
    }
  });

  it('v1 §8.3 card: capabilities declare streaming, and no push notifications or extended card', async () => {
    const { body } = await card(CARD('fake'));
    expect(body.capabilities).toMatchObject({ streaming: true, pushNotifications: false, extendedAgentCard: false });
  });

  it('v1 §8.3 card: the bearer token the JSON-RPC endpoint requires is declared as a security scheme', async () => {
    const { body } = await card(CARD('echo'));
    expect(body.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect(body.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
    const noToken = await fetch(`${tb.url}/agents/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('v1 §8.6 caching: cards carry Cache-Control max-age and Vary: A2A-Version', async () => {
    const { headers } = await card(CARD('echo'));
    expect(headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(headers.get('vary')).toMatch(/A2A-Version/i);
  });

  it('v1 §8.2 discovery: the root card describes the bridge, one skill per agent naming its endpoint', async () => {
    const { body } = await card('/.well-known/agent-card.json');
    expect(body.name).toBe('contactor');
    expect(body.supportedInterfaces[0]).toEqual({
      url: `${tb.url}/`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(body.skills.map((s: Wire) => s.id)).toEqual(['echo', 'fake']);
    expect(body.skills[0].description).toContain(`${tb.url}/agents/echo`);
  });
});

describe('v0.3 §5 agent discovery', () => {
  it('v0.3 §5.3 discovery: a v0.3 client finds its endpoint — the interface marked protocolVersion 0.3', async () => {
    const { body } = await card(CARD('echo'));
    const legacy = (body.supportedInterfaces as { url: string; protocolVersion: string }[]).find(
      (i) => i.protocolVersion === '0.3',
    );
    expect(legacy?.url).toBe(`${tb.url}/agents/echo`);
    const res = await fetch(legacy!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: userMessage('0.3', 'legacy') },
      }),
    });
    expect(((await res.json()) as Wire).result.kind).toBe('task');
  });

  it('v0.3 §5.5 card: the card served without a header is a valid v0.3 card with its url, transport and bearer scheme', async () => {
    for (const version of [undefined, '0.3']) {
      const { body } = await card(CARD('echo'), version);
      expect(AgentCardV03Schema.safeParse(body).success).toBe(true);
      expect(body).toMatchObject({
        url: `${tb.url}/agents/echo`,
        protocolVersion: '0.3.0',
        preferredTransport: 'JSONRPC',
      });
      expect(body.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    }
  });
});
