/**
 * Connection exhaustion, as the attack was made (scaled down with small caps set through
 * `createBridge({http})`, not 1,024 real sockets): one agent's token held every connection the bridge
 * would take, and the person's CLI, `/health` and every other caller got 503 — the cap was per address,
 * and every 127.x.y.z is this machine. Now connections are counted per identity (connection-guard.ts):
 * an agent holds at most its share, all agents together at most what the person's reserve leaves (also
 * when several flood at once), the person always has room, and unauthenticated connections give way to
 * authenticated ones.
 */
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import type { ConnectionLimits } from '../../main/transport/connection-guard.js';
import { createBridge, type Bridge } from '../../main/wiring/wiring.js';
import { eventually } from '../helpers/wait.js';
import { ECHO_AGENT, tempDir, writeTestConfig } from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';
import { openRaw, type Conn } from './raw-connection.js';

const TEST_MS = 120_000;
const LIMITS: ConnectionLimits = {
  maxConnections: 16,
  maxPerCaller: 4,
  reservedForPerson: 4,
  maxUnproven: 4,
  // Long: the flood below stays "young" throughout, so only the bridge-wide cap can make room.
  unprovenGraceMs: 600_000,
};

let bridge: Bridge | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await bridge?.stop();
  bridge = undefined;
});

async function start(names: readonly string[] = ['a1', 'a2']): Promise<{ url: URL; token: string }> {
  const dir = tempDir();
  const { configPath } = writeTestConfig(dir, {
    agents: Object.fromEntries(names.map((name) => [name, nodeFixture(ECHO_AGENT)])),
  });
  bridge = await createBridge({ configPath, env: { PATH: process.env.PATH, HOME: dir }, http: { limits: LIMITS } });
  await bridge.start();
  return { url: new URL(bridge.url), token: bridge.token! };
}

/** A raw connection that records when the bridge closes it and what it answered. */
const open = (url: URL): Promise<Conn> => openRaw(url, sockets);

const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list', params: {} });

/** One keep-alive JSON-RPC request on a raw connection; resolves with the status once the reply is whole. */
async function rpcOn(c: Conn, url: URL, token: string): Promise<{ status: number; body: string }> {
  c.socket.write(
    `POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${token}\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY}`,
  );
  const whole = (): boolean => {
    const [head, body = ''] = c.received().split('\r\n\r\n');
    const length = /content-length: (\d+)/i.exec(head ?? '');
    return length !== null && Buffer.byteLength(body) >= Number(length[1]);
  };
  await eventually(() => whole() || c.closed(), 'the answer or the close');
  const [head, body = ''] = c.received().split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head ?? '')?.[1] ?? 0), body };
}

async function personGetsIn(url: URL, token: string, agents = 2): Promise<void> {
  const health = await fetch(new URL('/health', url));
  expect(health.status).toBe(200);
  await health.text();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: BODY,
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { result: { agents: unknown[] } }).result.agents).toHaveLength(agents);
}

describe('connection exhaustion', () => {
  it(
    "one agent's token holding connections gets its share only; the person and other agents still get in",
    async () => {
      const { url, token } = await start();
      const agentToken = deriveAgentToken(token, 'a1');
      // The attack: more connections than the whole bridge takes, each kept open after its request.
      const statuses: number[] = [];
      for (let i = 0; i < LIMITS.maxConnections + 4; i += 1) {
        const c = await open(url);
        const reply = await rpcOn(c, url, agentToken);
        statuses.push(reply.status);
        if (reply.status === 503) {
          expect(JSON.parse(reply.body).error).toMatchObject({
            code: -32065,
            message: expect.stringContaining('too many connections held by agent a1'),
          });
          await eventually(() => c.closed(), 'the connection to close');
        }
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(LIMITS.maxPerCaller);
      expect(statuses.filter((s) => s === 503)).toHaveLength(LIMITS.maxConnections + 4 - LIMITS.maxPerCaller);
      await personGetsIn(url, token);
      // Another agent has its own share.
      const other = await open(url);
      expect((await rpcOn(other, url, deriveAgentToken(token, 'a2'))).status).toBe(200);
    },
    TEST_MS,
  );

  it(
    "several agents flooding at once hold the agents' budget between them; the person's reserve stays free",
    async () => {
      const names = ['a1', 'a2', 'a3', 'a4', 'a5'];
      const { url, token } = await start(names);
      // The attack: every agent at once keeps opening connections, each kept open after its request, until the
      // bridge refuses one. Five shares of 4 are 20, more than the whole bridge takes (16).
      const flood = async (agent: string): Promise<number> => {
        const agentToken = deriveAgentToken(token, agent);
        let held = 0;
        for (let attempt = 0; attempt < 40; attempt += 1) {
          const reply = await rpcOn(await open(url), url, agentToken);
          if (reply.status === 200) held += 1;
          if (reply.status === 503) break;
        }
        return held;
      };
      const held = await Promise.all(names.map(flood));
      // 16 connections - 4 kept for the person - 4 for connections not yet proven = 8 for all agents together.
      expect(held.reduce((a, b) => a + b, 0)).toBe(8);
      for (const count of held) expect(count).toBeLessThanOrEqual(4);

      // The person's reserve, end to end: 4 connections held at once, each answered, then /health and the CLI's call.
      const mine = await Promise.all([1, 2, 3, 4].map(() => open(url)));
      const answers = await Promise.all(mine.map((c) => rpcOn(c, url, token)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      expect(mine.filter((c) => c.closed())).toEqual([]);
      await personGetsIn(url, token, names.length);
    },
    TEST_MS,
  );

  it(
    'an unauthenticated flood filling every connection gives way to the person and to agents',
    async () => {
      const { url, token } = await start();
      const flood: Conn[] = [];
      for (let i = 0; i < LIMITS.maxConnections; i += 1) {
        const c = await open(url);
        c.socket.write(`POST / HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: `); // never finishes its headers
        flood.push(c);
      }
      await personGetsIn(url, token);
      const agent = await open(url);
      expect((await rpcOn(agent, url, deriveAgentToken(token, 'a1'))).status).toBe(200);
      // The oldest of the flood made room; the newest are still held (young, under the grace period).
      await eventually(() => flood[0]!.closed(), 'the oldest unauthenticated connection to close');
      expect(flood.at(-1)!.closed()).toBe(false);
    },
    TEST_MS,
  );
});
