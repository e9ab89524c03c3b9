/**
 * `watch` live, through a proxy that cuts the first stream after one event: the CLI must resume with
 * Last-Event-ID and still see the task to its end.
 */
import { writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/wait.js';
import { startTestBridge, tempDir, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, cliFixtureAgent, runCli } from './run-cli.js';

let bridge: TestBridge;
/** The agent replies once this file exists: after the dropped stream was resumed, however slow the machine. */
let gate: string;

beforeAll(async () => {
  const dir = tempDir();
  gate = path.join(dir, 'reply-now');
  bridge = await startTestBridge({ dir, agents: { slow: cliFixtureAgent('slow-reply.mjs', [gate]) } });
});
afterAll(() => bridge?.cleanup());

/** Forwards to the bridge (rewriting Host, which the bridge checks); drops the first resubscribe stream after its first event. */
function droppingProxy(target: URL): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let dropped = false;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let dropThis = false;
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1').replace(`127.0.0.1:${proxyPort()}`, target.host);
      requests.push(text);
      if (!dropped && text.includes('tasks/resubscribe') && !/last-event-id/i.test(text)) dropThis = true;
      upstream.write(Buffer.from(text, 'latin1'));
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      if (dropThis && chunk.toString('latin1').includes('data:')) {
        dropped = true;
        client.destroy();
        upstream.destroy();
      }
    });
    for (const s of [client, upstream])
      s.on('error', () => undefined).on('close', () => (client.destroy(), upstream.destroy()));
  });
  const proxyPort = () => (server.address() as { port: number }).port;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${proxyPort()}`,
        requests,
        close: () => new Promise<void>((done) => (sockets.forEach((s) => s.destroy()), server.close(() => done()))),
      }),
    ),
  );
}

describe('contactor watch', () => {
  it('shows the task to its end and resumes with Last-Event-ID after the connection drops', async () => {
    const env = bridgeEnv(bridge);
    const id = (await runCli(['send', 'slow', 'take your time', '--no-wait'], { env })).stdout.trim();
    const proxy = await droppingProxy(new URL(bridge.url));
    try {
      const watching = runCli(['watch', id], { env: { ...env, CONTACTOR_URL: proxy.url } });
      await eventually(() => proxy.requests.some((r) => /last-event-id: \d+/i.test(r)));
      writeFileSync(gate, '');
      const run = await watching;
      expect(run.stdout).toContain('slow: take your time');
      expect(run.stderr).toContain('[completed]');
      expect(run.code).toBe(0);
      expect(proxy.requests.some((r) => /last-event-id: \d+/i.test(r))).toBe(true);
    } finally {
      await proxy.close();
    }
  });
});
