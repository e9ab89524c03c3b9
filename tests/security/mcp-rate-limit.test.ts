/**
 * `rate_limit_per_minute` holds through `/mcp` (transport/rate-limit.ts): an external agent floods the bridge
 * with MCP requests, and with the JSON-RPC calls its tools make in-process; each counts in the caller's one
 * bucket, the same bucket its JSON-RPC POSTs use. The limit is 3 a minute: a token comes back every 20 s,
 * far longer than the few requests each attack takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveExternalAgentToken } from '../../main/transport/caller-tokens.js';
import { echoAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startTestBridge({ agents: { echo: echoAgent() }, config: { rate_limit_per_minute: 3 } });
});
afterAll(() => bridge?.cleanup());

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
});

async function postMcp(
  token: string,
  body: string,
  sessionId?: string,
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${bridge.url}/mcp`, {
    method: 'POST',
    headers: {
      ...MCP_HEADERS,
      authorization: `Bearer ${token}`,
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body,
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe('the rate limit counts /mcp', () => {
  it('an external agent flooding /mcp is refused past its share (429, -32065), and so are its JSON-RPC POSTs', async () => {
    const token = deriveExternalAgentToken(bridge.token, 'flooder');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await postMcp(token, initialize)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await postMcp(token, initialize);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(JSON.parse(refused.text).error).toMatchObject({
      code: -32065,
      message: expect.stringContaining('too many requests from agent:flooder'),
    });
    // One bucket per caller, whichever way in.
    const post = await fetch(`${bridge.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list', params: {} }),
    });
    expect(post.status).toBe(429);
    await post.text();
  });

  it('the JSON-RPC calls a tool makes in-process are charged to its caller: past the share the tool fails', async () => {
    const token = deriveExternalAgentToken(bridge.token, 'tool-flooder');
    const opened = await postMcp(token, initialize);
    expect(opened.status).toBe(200);
    const sessionId = opened.headers.get('mcp-session-id')!;
    const initialized = await postMcp(
      token,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      sessionId,
    );
    expect(initialized.status).toBe(202);
    // The third request of the minute gets in; the agents/list the tool makes inside the bridge is the fourth.
    const listed = await postMcp(
      token,
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_agents', arguments: {} } }),
      sessionId,
    );
    expect(listed.status).toBe(200);
    const data = listed.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map(
        (line) =>
          JSON.parse(line.slice('data: '.length)) as { result?: { isError?: boolean; content: { text: string }[] } },
      );
    const result = data.find((d) => d.result)?.result;
    expect(result?.isError).toBe(true);
    expect(result?.content[0]?.text).toContain('too many requests from agent:tool-flooder');
  });
});
