/**
 * A web page attacking the bridge. First the raw shapes a browser sends (a CSRF POST as text/plain or a
 * form, with an Origin; a DNS-rebinding Host), then a real page in headless Chromium, served from another
 * localhost port, trying `fetch` (simple and preflighted), a form post, and a rebinding hostname. Nothing
 * may reach dispatch: no task is created, the agent never runs, and every refusal is in the audit log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postRaw, rawRequest } from '../integration/http-raw.js';
import { startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';

let tb: TestBridge;
let port: string;
const runLog = () => path.join(tb.dir, 'runs.log');
const sendBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: { agent: 'rec', text: 'rm -rf ~' },
});

beforeAll(async () => {
  const dir = tempDir();
  tb = await startTestBridge({
    dir,
    isolatedEnv: true,
    agents: { rec: nodeFixture('record-run.mjs', { env: { RUN_LOG: path.join(dir, 'runs.log') } }) },
  });
  port = new URL(tb.url).port;
});
afterAll(async () => {
  await tb?.cleanup();
});

async function expectNothingDispatched(): Promise<void> {
  const list = await tb.rpc('tasks/list', {});
  expect(list.result.totalSize).toBe(0);
  expect(existsSync(runLog())).toBe(false);
}

function refusals(): { reason: string; status: number; origin?: string; host?: string }[] {
  const file = path.join(tb.dataDir, 'audit', 'audit.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'request.refused');
}

describe('browser-shaped requests over raw HTTP', () => {
  it.each([
    [
      'text/plain with an Origin (a simple CORS request)',
      { 'content-type': 'text/plain', origin: 'http://evil.example' },
      403,
      'origin-not-allowed',
    ],
    [
      'a form post with an Origin',
      { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      403,
      'origin-not-allowed',
    ],
    [
      'JSON with the token but from a page (Origin null)',
      { 'content-type': 'application/json', origin: 'null' },
      403,
      'origin-not-allowed',
    ],
    ['a form post without an Origin', { 'content-type': 'application/x-www-form-urlencoded' }, 415, 'not-json'],
    ['multipart without an Origin', { 'content-type': 'multipart/form-data; boundary=x' }, 415, 'not-json'],
  ])('refuses %s', async (_name, headers, status, reason) => {
    const before = refusals().length;
    const res = await postRaw(tb.url, tb.token, sendBody, { headers });
    expect(res.status).toBe(status);
    expect(res.json().jsonrpc).toBe('2.0');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(refusals().slice(before)).toEqual([expect.objectContaining({ reason, status })]);
    await expectNothingDispatched();
  });

  it('refuses a DNS-rebinding Host even with the right token and JSON', async () => {
    const res = await postRaw(tb.url, tb.token, sendBody, { headers: { host: `rebind.evil.example:${port}` } });
    expect(res.status).toBe(421);
    expect(refusals().at(-1)).toMatchObject({ reason: 'host-not-allowed', host: `rebind.evil.example:${port}` });
    await expectNothingDispatched();
  });

  it('fails every preflight: no CORS headers, ever', async () => {
    const res = await rawRequest(tb.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const health = await rawRequest(tb.url, { method: 'GET', path: '/health' });
    expect(Object.keys(health.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(health.text).not.toContain(tb.token);
  });
});

describe.skipIf(skipWithoutChromium('the browser CSRF tests'))('a real page in headless Chromium', () => {
  let browser: Browser;
  let page: Server;
  let pageUrl: string;

  beforeAll(async () => {
    page = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      if (req.url !== '/csrf-form') return res.end('<!doctype html><title>innocent page</title>');
      // The classic CSRF: a form that posts itself, text/plain so its body reads as JSON.
      const name = sendBody.slice(0, -2).replace(/'/g, '&#39;');
      res.end(
        `<!doctype html><iframe name="sink"></iframe>` +
          `<form method="POST" action="${tb.url}/" enctype="text/plain" target="sink"><input name='${name}' value='"}'></form>` +
          `<script>document.forms[0].submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
    browser = await launchChromium([
      '--no-proxy-server',
      // DNS rebinding without a DNS server: this name resolves to the bridge's loopback address.
      '--host-resolver-rules=MAP rebind.test 127.0.0.1',
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => page?.close(resolve));
  });

  it('cannot make the bridge run anything with fetch, a form, or a rebinding hostname', async () => {
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      await tab.goto(pageUrl);
      const bridge = tb.url;
      const outcome = await tab.evaluate(
        async ({ bridge, body, token }) => {
          const results: Record<string, string> = {};
          try {
            const r = await fetch(`${bridge}/`, {
              method: 'POST',
              mode: 'no-cors',
              headers: { 'content-type': 'text/plain' },
              body,
            });
            results.simple = `opaque:${r.type}`;
          } catch (e) {
            results.simple = `error:${(e as Error).name}`;
          }
          try {
            const r = await fetch(`${bridge}/`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
              body,
            });
            results.preflighted = `status:${r.status}`;
          } catch (e) {
            results.preflighted = `error:${(e as Error).name}`;
          }
          return results;
        },
        { bridge, body: sendBody, token: tb.token },
      );
      // The no-cors POST leaves the browser (its answer is opaque to the page) and is refused for its Origin;
      // the JSON POST dies at its preflight, so the page never learns anything, token or not.
      expect(outcome.simple).toBe('opaque:opaque');
      expect(outcome.preflighted).toBe('error:TypeError');
      await tab.goto(`${pageUrl}csrf-form`);
      await expect
        .poll(() => refusals().filter((r) => r.origin === pageUrl.replace(/\/$/, '')).length, {
          timeout: TEST_TIMEOUT_MS,
        })
        .toBeGreaterThanOrEqual(3);

      // After "rebinding", the page's own origin is the bridge's host:port, so its fetch is same-origin.
      const rebound = await context.newPage();
      const landing = await rebound.goto(`http://rebind.test:${port}/`);
      expect(landing?.status()).toBe(421);
      const status = await rebound.evaluate(
        async (body) =>
          (await fetch('/', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status,
        sendBody,
      );
      expect(status).toBe(421);
      expect(refusals().at(-1)).toMatchObject({ reason: 'host-not-allowed', host: `rebind.test:${port}` });
    } finally {
      await context.close();
    }
    await expectNothingDispatched();
    const reasons = new Set(refusals().map((r) => r.reason));
    expect(reasons).toContain('origin-not-allowed');
    expect(reasons).toContain('host-not-allowed');
  });
});

describe('the same bridge, asked properly', () => {
  it('runs a request from a local client with the token (so the refusals above were not an accident)', async () => {
    const res = await tb.rpc('message/send', { agent: 'rec', text: 'hello' });
    expect(res.result.status.state).toBe('completed');
    expect(readFileSync(runLog(), 'utf8')).toContain('rec ');
  });
});
