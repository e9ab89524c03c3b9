/**
 * Sending over real HTTP with the demo echo agent: both send forms, the per-agent endpoint, /health and
 * the cards (docs/contract.md#sending-a-message, docs/contract.md#agent-cards).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentCardV1Schema } from '../../main/schema/card.js';
import { HealthSchema } from '../../main/schema/discovery.js';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { rawRequest } from './http-raw.js';

let tb: TestBridge;

beforeAll(async () => {
  tb = await startTestBridge();
});
afterAll(async () => {
  await tb.cleanup();
});

function artifactText(task: { artifacts: { parts: { kind: string; text?: string }[] }[] }): string {
  return task.artifacts.flatMap((a) => a.parts.map((p) => p.text ?? '')).join('');
}

describe('message/send', () => {
  it('runs the shorthand end to end: completed, the reply as an artifact, a receipt', async () => {
    const res = await tb.rpc('message/send', { agent: 'echo', text: 'hello bridge' });
    const task = res.result;
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(artifactText(task)).toContain('echo: hello bridge');
    expect(task.metadata).toMatchObject({ agent: 'echo', requiresReview: true });
    expect(task.metadata.receipt).toMatchObject({ pid: expect.any(Number), exitCode: 0 });
    expect(task.history[0]).toMatchObject({ role: 'user', parts: [{ kind: 'text', text: 'hello bridge' }] });
    const again = await tb.rpc('tasks/get', { id: task.id });
    expect(again.result.status.state).toBe('completed');
    expect(artifactText(again.result)).toContain('echo: hello bridge');
  });

  it('accepts the standard A2A message with metadata.agent', async () => {
    const res = await tb.rpc('message/send', {
      message: {
        kind: 'message',
        role: 'user',
        messageId: crypto.randomUUID(),
        parts: [{ kind: 'text', text: 'standard form' }],
      },
      metadata: { agent: 'echo' },
    });
    expect(res.result.status.state).toBe('completed');
    expect(res.result.metadata.agent).toBe('echo');
    expect(artifactText(res.result)).toContain('echo: standard form');
  });

  it('sends a standard message at the root without an agent to the only agent (docs/contract.md#the-default-agent)', async () => {
    const res = await tb.rpc('message/send', {
      message: { role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text: 'to whom?' }] },
    });
    expect(res.result.metadata.agent).toBe('echo');
    expect(artifactText(res.result)).toContain('echo: to whom?');
  });

  it.each(['/agents/echo', '/agents/echo/'])('takes the agent from the path at %s', async (path) => {
    const res = await tb.rpc(
      'message/send',
      { message: { role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text: `via ${path}` }] } },
      { path },
    );
    expect(res.result.metadata.agent).toBe('echo');
    expect(artifactText(res.result)).toContain(`echo: via ${path}`);
  });

  it('lets a shorthand at /agents/<name> leave the agent out', async () => {
    const res = await tb.rpc('message/send', { text: 'no agent field' }, { path: '/agents/echo' });
    expect(res.result.metadata.agent).toBe('echo');
    expect(artifactText(res.result)).toContain('echo: no agent field');
  });

  it('refuses a shorthand whose agent contradicts the endpoint', async () => {
    const res = await tb.rpc('message/send', { agent: 'other', text: 'x' }, { path: '/agents/echo' });
    expect(res.error?.code).toBe(-32602);
  });

  it('answers 404 for the endpoint of an agent that does not exist', async () => {
    const res = await rawRequest(tb.url, {
      path: '/agents/nobody',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}` },
    });
    expect(res.status).toBe(404);
  });
});

describe('GET endpoints', () => {
  it('/health says who is running, without a token', async () => {
    const res = await rawRequest(tb.url, { method: 'GET', path: '/health' });
    expect(res.status).toBe(200);
    const health = HealthSchema.parse(res.json());
    expect(health).toMatchObject({ status: 'ok', name: 'contactor', agents: 1, pid: process.pid });
    expect(res.text).not.toContain(tb.token);
  });

  // The v1 card is for a client that says 1.0; without the header comes the card both versions read.
  const V1 = { 'A2A-Version': '1.0' };

  it('serves the bridge card: valid v1, one skill per agent, no token inside', async () => {
    const res = await rawRequest(tb.url, { method: 'GET', path: '/.well-known/agent-card.json', headers: V1 });
    expect(res.status).toBe(200);
    const card = AgentCardV1Schema.parse(res.json());
    expect(card.skills.map((s) => s.id)).toEqual(['echo']);
    expect(res.text).not.toContain(tb.token);
  });

  it('serves each agent card: valid v1, traits extension, no token inside', async () => {
    const res = await rawRequest(tb.url, {
      method: 'GET',
      path: '/agents/echo/.well-known/agent-card.json',
      headers: V1,
    });
    expect(res.status).toBe(200);
    const card = AgentCardV1Schema.parse(res.json());
    expect(card.name).toBe('echo');
    expect(card.supportedInterfaces[0]!.url).toBe(`${tb.url}/agents/echo`);
    const traits = card.capabilities.extensions?.find((e) => e.uri === 'urn:contactor:agent-traits:v1');
    expect(traits?.params).toMatchObject({ backend: 'subprocess_cli', contentVerified: false, interruptible: true });
    expect(res.text).not.toContain(tb.token);
    const viaRpc = await tb.rpc('agents/card', { agent: 'echo' });
    expect(viaRpc.result).toEqual(res.json());
  });

  it('answers 404 for the card of an unknown agent', async () => {
    const res = await rawRequest(tb.url, { method: 'GET', path: '/agents/nobody/.well-known/agent-card.json' });
    expect(res.status).toBe(404);
  });
});
