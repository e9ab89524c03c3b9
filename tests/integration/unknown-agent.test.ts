/**
 * An agent that is not configured, named three ways: in `metadata.agent` at `/`, as the endpoint
 * `POST /agents/<name>`, and as the card `GET /agents/<name>/.well-known/agent-card.json`. All three say
 * the same (-32060, `no agent named "codex"; configured agents: …`) in the request's protocol version;
 * the two URLs that do not exist answer HTTP 404 (docs/contract.md#error-codes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { headersFor, userMessage, type Version, type Wire } from '../a2a/wire.js';

let tb: TestBridge;
beforeAll(async () => {
  tb = await startTestBridge({ agents: { echo: echoAgent(), shout: echoAgent() }, isolatedEnv: true });
});
afterAll(() => tb?.cleanup());

const WORDS = 'no agent named "codex"; configured agents: echo, shout';

async function post(path: string, version: Version, body: unknown): Promise<{ status: number; json: Wire }> {
  const res = await fetch(`${tb.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}`, ...headersFor(version) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe.each([
  { version: '0.3' as const, method: 'message/send' },
  { version: '1.0' as const, method: 'SendMessage' },
])('A2A $version: an agent that is not configured', ({ version, method }) => {
  const request = (id: number | string, agentInMetadata: boolean) => ({
    jsonrpc: '2.0',
    id,
    method,
    params: { message: userMessage(version, 'hi'), ...(agentInMetadata ? { metadata: { agent: 'codex' } } : {}) },
  });

  it('POST /agents/codex says what `/` says for metadata.agent "codex": same code, words and data; HTTP 404', async () => {
    const atRoot = await post('/', version, request(7, true));
    const atPath = await post('/agents/codex', version, request(7, false));
    expect(atRoot.json.error.code).toBe(-32060);
    expect(atRoot.json.error.message).toBe(WORDS);
    expect(atPath.json).toEqual(atRoot.json);
    expect(atPath.status).toBe(404);
    expect(atPath.json.id).toBe(7);
    if (version === '1.0') {
      expect(atPath.json.error.data).toEqual([expect.objectContaining({ reason: 'UNKNOWN_AGENT' })]);
    } else {
      expect(atPath.json.error.data).toEqual({ agents: ['echo', 'shout'] });
    }
  });

  it('GET /agents/codex/.well-known/agent-card.json: 404 naming the configured agents', async () => {
    const res = await fetch(`${tb.url}/agents/codex/.well-known/agent-card.json`, { headers: headersFor(version) });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error).toMatchObject({ code: -32060, message: WORDS });
  });
});
