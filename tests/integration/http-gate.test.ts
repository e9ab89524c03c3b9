/**
 * The request gate over real HTTP (SECURITY.md#threat-model; docs/contract.md#security-defaults): a web
 * page's request (foreign Host = DNS rebinding, Origin = CSRF), non-JSON and oversized bodies, and the
 * bearer token. Every refusal happens before dispatch, so no agent runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { runsWith, uniquePrompt } from './agent-runs.js';
import { postRaw, rawRequest } from './http-raw.js';

const MAX_BODY = 4096;

let tb: TestBridge;
let scratch: string;
let port: string;
const runsFile = () => path.join(scratch, 'runs.txt');
const sendBody = (text: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { agent: 'counter', text } });
/** Whether the counter agent ran with this test's own prompt: a request another test let through cannot count. */
const ran = (text: string) => runsWith(runsFile(), text) > 0;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'contactor-gate-'));
  tb = await startTestBridge({
    agents: { counter: integrationAgent('counter.mjs', [runsFile()]) },
    config: { max_body_bytes: MAX_BODY, allowed_origins: ['http://trusted.example'] },
  });
  port = new URL(tb.url).port;
});
afterAll(async () => {
  await tb.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe('host and origin', () => {
  it.each([`evil.example:PORT`, '127.0.0.1', '127.0.0.1:1'])('refuses Host %s', async (host) => {
    const prompt = uniquePrompt('a foreign Host');
    const res = await postRaw(tb.url, tb.token, sendBody(prompt), { headers: { host: host.replace('PORT', port) } });
    expect(res.status).toBe(421);
    expect(res.json().error.code).toBe(-32600);
    const get = await rawRequest(tb.url, {
      method: 'GET',
      path: '/health',
      headers: { host: host.replace('PORT', port) },
    });
    expect(get.status).toBe(421);
    expect(ran(prompt)).toBe(false);
  });

  it.each(['localhost:PORT', '127.0.0.1:PORT'])('accepts Host %s', async (host) => {
    const res = await rawRequest(tb.url, {
      method: 'GET',
      path: '/health',
      headers: { host: host.replace('PORT', port) },
    });
    expect(res.status).toBe(200);
  });

  it('refuses a request carrying a web page Origin with 403', async () => {
    const prompt = uniquePrompt('a web page Origin');
    const res = await postRaw(tb.url, tb.token, sendBody(prompt), { headers: { origin: 'http://evil.example' } });
    expect(res.status).toBe(403);
    expect(res.json().error.message).toMatch(/Origin/);
    const card = await rawRequest(tb.url, {
      method: 'GET',
      path: '/.well-known/agent-card.json',
      headers: { origin: 'null' },
    });
    expect(card.status).toBe(403);
    expect(ran(prompt)).toBe(false);
  });

  it('lets an explicitly allowed Origin through', async () => {
    const res = await postRaw(tb.url, tb.token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list' }), {
      headers: { origin: 'http://trusted.example' },
    });
    expect(res.status).toBe(200);
    expect(res.json().result.agents).toHaveLength(1);
  });
});

describe('body', () => {
  it('refuses a text/plain POST with 415 and -32005', async () => {
    const prompt = uniquePrompt('text/plain');
    const res = await postRaw(tb.url, tb.token, sendBody(prompt), { headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.json().error.code).toBe(-32005);
    expect(ran(prompt)).toBe(false);
  });

  it('refuses a POST without a content type', async () => {
    const prompt = uniquePrompt('no content type');
    const res = await rawRequest(tb.url, { body: sendBody(prompt), headers: { authorization: `Bearer ${tb.token}` } });
    expect(res.status).toBe(415);
    expect(ran(prompt)).toBe(false);
  });

  it('accepts application/json with a charset', async () => {
    const res = await postRaw(tb.url, tb.token, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list' }), {
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(200);
  });

  it('refuses a body over max_body_bytes with 413 and a JSON-RPC error body', async () => {
    const prompt = uniquePrompt('an oversized body');
    const res = await postRaw(tb.url, tb.token, sendBody(prompt + 'x'.repeat(MAX_BODY * 2)));
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(res.json().error.message).toContain(String(MAX_BODY));
    expect(ran(prompt)).toBe(false);
  });

  it('refuses an oversized chunked body (no Content-Length) the same way', async () => {
    const prompt = uniquePrompt('an oversized chunked body');
    const res = await postRaw(tb.url, tb.token, sendBody(prompt + 'y'.repeat(MAX_BODY * 2)), {
      headers: { 'transfer-encoding': 'chunked' },
    });
    expect(res.status).toBe(413);
    expect(res.json().error.code).toBe(-32600);
    expect(ran(prompt)).toBe(false);
  });
});

describe('token', () => {
  it.each([
    ['no authorization header', undefined],
    ['a wrong token', 'Bearer not-the-token'],
    ['the token without the Bearer scheme', 'TOKEN'],
    ['an empty bearer', 'Bearer '],
  ])('refuses %s with 401 and -32066; no agent runs', async (_name, auth) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (auth) headers.authorization = auth.replace('TOKEN', tb.token);
    const prompt = uniquePrompt('a refused token');
    const res = await rawRequest(tb.url, { body: sendBody(prompt), headers });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json().error.code).toBe(-32066);
    expect(ran(prompt)).toBe(false);
  });

  it('refuses the event feed without the token', async () => {
    const res = await rawRequest(tb.url, { method: 'GET', path: '/events' });
    expect(res.status).toBe(401);
  });

  it('runs the agent with the right token (the gate is not refusing everything)', async () => {
    const prompt = uniquePrompt('the right token');
    const res = await postRaw(tb.url, tb.token, sendBody(prompt));
    expect(res.status).toBe(200);
    expect(res.json().result.status.state).toBe('completed');
    expect(ran(prompt)).toBe(true);
  });
});
