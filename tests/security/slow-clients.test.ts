/**
 * Connection caps and slow-client bounds, as the attacker did it (scaled down: tens of connections, not thousands, on
 * loopback, with the bridge's bounds shortened the way `createBridge({http})` allows): slow headers and slow bodies
 * used to hold connections for as long as the client liked, and nothing capped how many there were.
 */
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { HttpBounds } from '../../main/wiring/http-server.js';
import { createBridge, type Bridge } from '../../main/wiring/wiring.js';
import { eventually } from '../helpers/wait.js';
import { ECHO_AGENT, tempDir, writeTestConfig } from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';
import { openRaw, type Conn } from './raw-connection.js';

let bridge: Bridge | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await bridge?.stop();
  bridge = undefined;
});

async function start(http: Partial<HttpBounds>): Promise<{ url: URL; token: string }> {
  const dir = tempDir();
  const { configPath } = writeTestConfig(dir, { agents: { echo: nodeFixture(ECHO_AGENT) } });
  bridge = await createBridge({ configPath, env: { PATH: process.env.PATH, HOME: dir }, http });
  await bridge.start();
  return { url: new URL(bridge.url), token: bridge.token! };
}

/** A raw connection that records when the bridge closes it and what it answered. */
const open = (url: URL): Promise<Conn> => openRaw(url, sockets);

const head = (url: URL, token: string, length: number) =>
  `POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${token}\r\nContent-Length: ${length}\r\n\r\n`;

async function rpcWorks(url: URL, token: string): Promise<boolean> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list', params: {} }),
  });
  return res.status === 200 && Array.isArray(((await res.json()) as { result: { agents: unknown[] } }).result.agents);
}

describe('slow clients', () => {
  it('drops the oldest of too many half-sent requests, so a real client still gets in; the rest time out', async () => {
    // The headers deadline is what ends the held trickles last; long enough that the real client's request,
    // parsed by this loaded process, never runs into it.
    const { url, token } = await start({
      headersTimeoutMs: 10_000,
      checkEveryMs: 100,
      limits: { maxConnections: 100, maxPerCaller: 100, reservedForPerson: 0, maxUnproven: 8, unprovenGraceMs: 0 },
    });
    const trickles: Conn[] = [];
    for (let i = 0; i < 20; i += 1) {
      const c = await open(url);
      c.socket.write(`POST / HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: `); // never finishes its headers
      trickles.push(c);
    }
    // At most 8 are held at any time: the 12 oldest are dropped at once.
    await eventually(() => trickles.filter((c) => c.closed()).length >= 12);
    expect(await rpcWorks(url, token)).toBe(true);
    // The headers deadline ends the others.
    await eventually(() => trickles.every((c) => c.closed()));
  });

  it('ends a request whose body never finishes arriving', async () => {
    const { url, token } = await start({ requestTimeoutMs: 500, checkEveryMs: 100 });
    const slow = await open(url);
    slow.socket.write(`${head(url, token, 1000)}{"jsonrpc":`);
    await eventually(() => slow.closed());
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(await rpcWorks(url, token)).toBe(true);
  });

  it('refuses connections past the cap with 503 and a JSON-RPC error', async () => {
    const { url, token } = await start({
      limits: { maxConnections: 5, maxPerCaller: 5, reservedForPerson: 0, maxUnproven: 5, unprovenGraceMs: 0 },
    });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list', params: {} });
    const held: Conn[] = [];
    for (let i = 0; i < 5; i += 1) {
      const c = await open(url);
      c.socket.write(head(url, token, Buffer.byteLength(body)) + body); // keep-alive: stays open
      await eventually(() => c.received().includes('"agents"'));
      held.push(c);
    }
    const extra = await open(url);
    await eventually(() => extra.closed());
    expect(extra.received()).toMatch(/^HTTP\/1\.1 503/);
    const json = JSON.parse(extra.received().split('\r\n\r\n')[1]!);
    expect(json.error).toMatchObject({ code: -32065, message: expect.stringContaining('too many connections') });
    for (const c of held) c.socket.destroy();
    await eventually(() => held.every((c) => c.closed()));
  });
});
