/** A peer that echoes our bearer token in its error must not get it into our task's failure reason. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2aRemoteBackend } from '../../main/backends/a2a/backend.js';
import { A2aAgentSchema } from '../../main/schema/config.js';
import { makeTurn, recorder } from './turn-fakes.js';

const TOKEN = 'peer-token-0123456789abcdefghijklmnop';
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          name: 'leaky',
          description: 'echoes credentials in errors',
          version: '1',
          supportedInterfaces: [{ url: `${url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          capabilities: { streaming: false },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        }),
      );
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: unknown };
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          error: { code: -32602, message: `bad request from ${req.headers.authorization}` },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('a2a backend secrets', () => {
  it('redacts the token a peer echoes back', async () => {
    const config = A2aAgentSchema.parse({ kind: 'a2a', url, token_env: 'LEAKY_TOKEN' });
    const backend = new A2aRemoteBackend({ name: 'remote', config, env: { LEAKY_TOKEN: TOKEN }, pollIntervalMs: 50 });
    const outcome = await backend.run(makeTurn(), recorder().reporter);
    expect(outcome.kind).not.toBe('completed');
    const reason = 'reason' in outcome ? outcome.reason : '';
    expect(reason).toContain('[REDACTED]');
    expect(reason).not.toContain(TOKEN);
    await backend.close();
  });
});
