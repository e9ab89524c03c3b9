/**
 * The HTTP edge's routes over real HTTP (transport/http.ts): one router behind one request gate. What a
 * router library would answer on its own (HEAD for every GET, case-insensitive or trailing-slash matches,
 * percent-decoded names) stays what the bridge answered before it; unusual URLs (a query, a fragment)
 * reach the same JSON-RPC handler, token check and audit as plain ones.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';

let tb: TestBridge;

beforeAll(async () => {
  tb = await startTestBridge();
});
afterAll(() => tb.cleanup());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** Sends `rawPath` byte for byte (a URL object would drop a fragment and normalise the path). */
function send(method: string, rawPath: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(tb.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method,
        path: rawPath,
        headers: {
          authorization: `Bearer ${tb.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const agentsList = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list' });

describe('routes the router must not add', () => {
  it.each(['HEAD', 'PUT', 'DELETE', 'OPTIONS'])('refuses %s /health with 405 (GET and POST only)', async (method) => {
    const res = await send(method, '/health');
    expect(res.status).toBe(405);
    if (method !== 'HEAD') expect(res.body.error).toMatchObject({ code: -32600 });
  });

  it.each([
    ['GET', '/HEALTH'],
    ['GET', '/health/'],
    ['GET', '/.well-known/agent-card.json/'],
    ['GET', '/agents/echo'],
    ['GET', '/agents/echo/'],
    ['GET', '/agents/%65cho/.well-known/agent-card.json'],
    ['POST', '/agents/%65cho'],
    ['POST', '/Agents/echo'],
    ['POST', '/agents/echo//'],
    ['POST', '/health'],
    ['POST', '/shutdown'],
  ])('answers %s %s with 404 and a JSON-RPC error', async (method, rawPath) => {
    const res = await send(method, rawPath, method === 'POST' ? agentsList : undefined);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32601 } });
  });

  it.each([
    ['GET', '/agents/nobody/.well-known/agent-card.json'],
    ['POST', '/agents/nobody'],
  ])('answers %s %s (no such agent) with 404 and -32060 naming the agents', async (method, rawPath) => {
    const res = await send(method, rawPath, method === 'POST' ? agentsList : undefined);
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({
      code: -32060,
      message: 'no agent named "nobody"; configured agents: echo',
      data: { agents: ['echo'] },
    });
  });
});

describe('routes', () => {
  it.each([
    '/health',
    '/.well-known/agent-card.json',
    '/.well-known/agent.json',
    '/agents/echo/.well-known/agent-card.json',
  ])('serves GET %s', async (rawPath) => {
    const res = await send('GET', rawPath);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it.each(['/', '/agents/echo', '/agents/echo/', '/?A2A-Version=1.0', '/agents/echo#a-fragment', '/?x=1#f'])(
    'answers JSON-RPC at POST %s',
    async (rawPath) => {
      const res = await send('POST', rawPath, agentsList);
      expect(res.status).toBe(200);
      expect(res.body.result.agents.map((a: { name: string }) => a.name)).toEqual(['echo']);
    },
  );

  it('asks for the token on an unusual URL too', async () => {
    const res = await send('POST', '/agents/echo#a-fragment', agentsList, { authorization: 'Bearer wrong' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body.error.code).toBe(-32066);
  });

  it('audits each refusal once, under its path, wherever it was refused', async () => {
    expect((await send('PUT', '/health')).status).toBe(405);
    expect((await send('POST', '/agents/echo#a-fragment', agentsList, { authorization: 'Bearer wrong' })).status).toBe(
      401,
    );
    expect((await send('POST', '/agents/echo#a-fragment', agentsList, { host: 'evil.example' })).status).toBe(421);
    // Stopping closes the audit log, which writes what it still holds.
    await tb.stop();
    const refused = readFileSync(path.join(tb.dataDir, 'audit', 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((e) => e.type === 'request.refused');
    const last = refused.slice(-3).map(({ reason, status, method, path: at }) => ({ reason, status, method, at }));
    expect(last).toEqual([
      { reason: 'method-not-allowed', status: 405, method: 'PUT', at: '/health' },
      { reason: 'unauthorized', status: 401, method: 'POST', at: '/agents/echo' },
      { reason: 'host-not-allowed', status: 421, method: 'POST', at: '/agents/echo' },
    ]);
  });
});
