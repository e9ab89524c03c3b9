import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpApiBackend } from '../../main/backends/http-api.js';
import { HttpApiAgentSchema } from '../../main/schema/config.js';
import { startMockChatServer, type MockChatServer } from '../fixtures/http-api/mock-chat-server.js';
import { makeTurn, recorder } from './turn-fakes.js';

let mock: MockChatServer;
beforeAll(async () => {
  mock = await startMockChatServer();
});
afterAll(() => mock.close());

describe('http_api review', () => {
  it('fails retryable, never throws, when a plain JSON reply is cut off mid-body', async () => {
    mock.behave((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"id":"x","choices":[{"message":{"content":"par');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const config = HttpApiAgentSchema.parse({ kind: 'http_api', base_url: mock.baseUrl, model: 'm' });
    const outcome = await new HttpApiBackend({ name: 'llm', config, env: {} }).run(makeTurn(), recorder().reporter);
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
  });
});
