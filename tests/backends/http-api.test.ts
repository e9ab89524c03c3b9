import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpApiBackend, retryAfterOf } from '../../main/backends/http-api/backend.js';
import { withDecisionContract } from '../../main/domain/decision-contract.js';
import { HttpApiAgentSchema } from '../../main/schema/config.js';
import {
  chunk,
  jsonError,
  sseHead,
  startMockChatServer,
  streamText,
  type MockChatServer,
} from '../fixtures/http-api/mock-chat-server.js';
import { makeTurn, recorder } from './turn-fakes.js';

let mock: MockChatServer;
const KEY = 'sk-test-secret-123';

beforeAll(async () => {
  mock = await startMockChatServer();
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.requests.length = 0;
  mock.behave((req, res) => streamText(res, ['Hel', 'lo ', 'there']));
});

function backend(
  extra: Record<string, unknown> = {},
  opts: { maxContexts?: number; maxMessages?: number } = {},
): HttpApiBackend {
  const config = HttpApiAgentSchema.parse({
    kind: 'http_api',
    base_url: mock.baseUrl,
    model: 'mock-model',
    api_key_env: 'MOCK_KEY',
    ...extra,
  });
  return new HttpApiBackend({ name: 'llm', config, env: { MOCK_KEY: KEY }, ...opts });
}

describe('http_api backend against a streaming mock server', () => {
  it('streams the deltas as text and completes on [DONE]', async () => {
    const rec = recorder();
    const outcome = await backend({ headers: { 'x-extra': 'yes' }, temperature: 0.2, system_prompt: 'Be brief.' }).run(
      makeTurn({ text: 'hi' }),
      rec.reporter,
    );
    expect(outcome).toEqual({ kind: 'completed' });
    expect(rec.texts).toEqual(['Hel', 'lo ', 'there']);
    const sent = mock.requests[0]!;
    expect(sent.body).toMatchObject({ model: 'mock-model', stream: true, temperature: 0.2 });
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.headers['x-extra']).toBe('yes');
    expect(rec.receipt()).toMatchObject({ httpStatus: 200, finishReason: 'stop', model: 'mock-model', replyChars: 11 });
    expect(JSON.stringify(rec.receipt())).not.toContain(KEY);
  });

  it('keeps the conversation per contextId: the second request carries the first exchange', async () => {
    const b = backend();
    mock.behave((req, res) => streamText(res, [`reply ${req.body.messages.length}`]));
    await b.run(makeTurn({ contextId: 'c-A', text: 'first question' }), recorder().reporter);
    await b.run(makeTurn({ contextId: 'c-B', text: 'other context' }), recorder().reporter);
    const rec = recorder();
    expect(await b.run(makeTurn({ contextId: 'c-A', text: 'second question', followUp: true }), rec.reporter)).toEqual({
      kind: 'completed',
    });
    expect(mock.requests[2]!.body.messages).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'reply 1' },
      { role: 'user', content: 'second question' },
    ]);
    expect(mock.requests[1]!.body.messages).toEqual([{ role: 'user', content: 'other context' }]);
  });

  it('keeps the decision contract out of the stored history but sends it with the new turn', async () => {
    const b = backend();
    await b.run(makeTurn({ contextId: 'c-D', text: withDecisionContract('pick one') }), recorder().reporter);
    await b.run(
      makeTurn({ contextId: 'c-D', text: withDecisionContract('and now?'), followUp: true }),
      recorder().reporter,
    );
    const messages = mock.requests[1]!.body.messages as { content: string }[];
    expect(messages[0]!.content).toBe('pick one');
    expect(messages[2]!.content).toBe(withDecisionContract('and now?'));
  });

  it('a follow-up whose conversation is gone sends its cold text (the whole request); with history, the warm one', async () => {
    const b = backend({}, { maxContexts: 1 });
    const cold = { text: 'pick a format\n---\nThe requester chose: TOML', attachments: [] };
    await b.run(makeTurn({ contextId: 'kept', text: 'pick a format' }), recorder().reporter);
    await b.run(
      makeTurn({ contextId: 'kept', text: 'The requester chose: TOML', followUp: true, cold }),
      recorder().reporter,
    );
    expect(mock.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: 'The requester chose: TOML' });

    await b.run(makeTurn({ contextId: 'evicts-it', text: 'something else' }), recorder().reporter);
    const rec = recorder();
    await b.run(makeTurn({ contextId: 'kept', text: 'The requester chose: TOML', followUp: true, cold }), rec.reporter);
    expect(mock.requests.at(-1)!.body.messages).toEqual([{ role: 'user', content: cold.text }]);
    expect(rec.receipt()).toMatchObject({ conversationLost: true });
  });

  it('bounds the memory: old contexts are forgotten and long histories trimmed by whole exchanges', async () => {
    const b = backend({}, { maxContexts: 2, maxMessages: 4 });
    for (const ctx of ['c1', 'c2', 'c3'])
      await b.run(makeTurn({ contextId: ctx, text: `in ${ctx}` }), recorder().reporter);
    const rec = recorder();
    await b.run(makeTurn({ contextId: 'c1', text: 'back to c1', followUp: true }), rec.reporter);
    expect(mock.requests.at(-1)!.body.messages).toEqual([{ role: 'user', content: 'back to c1' }]);
    expect(rec.receipt()).toMatchObject({ conversationLost: true });
    for (const n of [1, 2, 3]) await b.run(makeTurn({ contextId: 'c9', text: `q${n}` }), recorder().reporter);
    const last = mock.requests.at(-1)!.body.messages as { role: string; content: string }[];
    // 4 kept messages = the two newest exchanges, then the new question.
    expect(last.map((m) => `${m.role}:${m.content}`)).toEqual([
      'user:q1',
      'assistant:Hello there',
      'user:q2',
      'assistant:Hello there',
      'user:q3',
    ]);
  });

  it('a stream cut mid-way fails retryable and keeps the text received so far', async () => {
    mock.behave((req, res) => {
      sseHead(res);
      res.write(chunk({ role: 'assistant', content: '' }));
      res.write(chunk({ content: 'partial answer' }));
      setTimeout(() => res.destroy(), 20);
    });
    const rec = recorder();
    const outcome = await backend().run(makeTurn(), rec.reporter);
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
    expect(outcome.kind === 'failed' && outcome.reason).toMatch(/broke mid-stream.*14 characters received are kept/);
    expect(rec.text()).toBe('partial answer');
    expect(rec.receipt()).toMatchObject({ streamBroken: true });
  });

  it('a malformed chunk fails retryable, keeping what came before', async () => {
    mock.behave((req, res) => {
      sseHead(res);
      res.write(chunk({ content: 'good ' }));
      res.write('data: {"choices": [ this is not json\n\n');
      res.write(chunk({ content: 'never read' }));
      res.end();
    });
    const rec = recorder();
    const outcome = await backend().run(makeTurn(), rec.reporter);
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
    expect(outcome.kind === 'failed' && outcome.reason).toMatch(/malformed stream chunk/);
    expect(rec.text()).toBe('good ');
  });

  it('a stream that ends without finish_reason or [DONE] is broken, one that ends after finish_reason is whole', async () => {
    mock.behave((req, res) => {
      sseHead(res);
      res.write(chunk({ content: 'half' }));
      res.end();
    });
    expect(await backend().run(makeTurn(), recorder().reporter)).toMatchObject({ kind: 'failed', retryable: true });
    mock.behave((req, res) => streamText(res, ['whole'], { done: false }));
    expect(await backend().run(makeTurn(), recorder().reporter)).toEqual({ kind: 'completed' });
  });

  it('429 is retryable with Retry-After in the receipt and the reason', async () => {
    mock.behave((req, res) => jsonError(res, 429, 'Rate limit reached for requests', { 'retry-after': '7' }));
    const rec = recorder();
    const outcome = await backend().run(makeTurn(), rec.reporter);
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
    expect(outcome.kind === 'failed' && outcome.reason).toMatch(
      /HTTP 429: Rate limit reached for requests; retry after 7s/,
    );
    expect(rec.receipt()).toMatchObject({ httpStatus: 429, retryAfterMs: 7000 });
  });

  it('500 is retryable; 400 is not and carries the server message', async () => {
    mock.behave((req, res) => jsonError(res, 500, 'upstream exploded'));
    expect(await backend().run(makeTurn(), recorder().reporter)).toMatchObject({
      kind: 'failed',
      retryable: true,
      reason: expect.stringMatching(/HTTP 500: upstream exploded/),
    });
    mock.behave((req, res) => jsonError(res, 400, "model 'nope' does not exist"));
    expect(await backend().run(makeTurn(), recorder().reporter)).toMatchObject({
      kind: 'failed',
      retryable: false,
      reason: expect.stringMatching(/HTTP 400: model 'nope' does not exist/),
    });
  });

  it('never leaks the API key, even when the server echoes it', async () => {
    mock.behave((req, res) => jsonError(res, 401, `Incorrect API key provided: ${req.headers.authorization}`));
    const rec = recorder();
    const outcome = await backend().run(makeTurn(), rec.reporter);
    expect(outcome).toMatchObject({ kind: 'failed', retryable: false });
    expect(JSON.stringify(outcome)).not.toContain(KEY);
    expect(outcome.kind === 'failed' && outcome.reason).toMatch(/check api_key_env/);
  });

  it('redacts what the server echoed through the domain: the key, and credentials of any kind', async () => {
    mock.behave((req, res) =>
      jsonError(res, 401, `bad key ${req.headers.authorization}; proxy says password=hunter22 for ${KEY}`),
    );
    const outcome = await backend().run(makeTurn(), recorder().reporter);
    const reason = outcome.kind === 'failed' ? outcome.reason : '';
    expect(reason).toContain('bad key Bearer [REDACTED]; proxy says password=[REDACTED] for [REDACTED]');
    expect(reason).not.toContain('hunter22');
  });

  it('a missing key variable is undelivered, naming the variable', async () => {
    const config = HttpApiAgentSchema.parse({
      kind: 'http_api',
      base_url: mock.baseUrl,
      model: 'm',
      api_key_env: 'NOT_SET_ANYWHERE_X',
    });
    const outcome = await new HttpApiBackend({ name: 'llm', config, env: {} }).run(makeTurn(), recorder().reporter);
    expect(outcome).toMatchObject({
      kind: 'undelivered',
      retryable: false,
      reason: expect.stringContaining('NOT_SET_ANYWHERE_X'),
    });
    expect(mock.requests).toHaveLength(0);
  });

  it('an unreachable server fails retryable', async () => {
    const config = HttpApiAgentSchema.parse({ kind: 'http_api', base_url: 'http://127.0.0.1:9/v1', model: 'm' });
    const outcome = await new HttpApiBackend({ name: 'llm', config }).run(makeTurn(), recorder().reporter);
    expect(outcome).toMatchObject({
      kind: 'failed',
      retryable: true,
      reason: expect.stringMatching(/could not reach/),
    });
  });

  it('abort stops a slow stream promptly and closes the connection', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((r) => (closed = r));
    mock.behave((req, res) => {
      sseHead(res);
      res.write(chunk({ content: 'thinking...' }));
      res.on('close', () => closed());
    });
    const abort = new AbortController();
    const rec = recorder();
    const running = backend().run(makeTurn({ signal: abort.signal }), rec.reporter);
    await expect.poll(() => rec.text()).toBe('thinking...');
    abort.abort();
    expect(await running).toEqual({ kind: 'failed', retryable: true, reason: 'stopped' });
    await serverSawClose;
  });

  it('accepts a server that ignores stream:true and answers with one JSON completion', async () => {
    mock.behave((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'c1',
          choices: [{ index: 0, message: { role: 'assistant', content: 'all at once' }, finish_reason: 'stop' }],
        }),
      );
    });
    const rec = recorder();
    expect(await backend().run(makeTurn(), rec.reporter)).toEqual({ kind: 'completed' });
    expect(rec.text()).toBe('all at once');
  });

  it('a plain JSON reply cut off mid-body fails retryable and never throws', async () => {
    mock.behave((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"id":"x","choices":[{"message":{"content":"par');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const config = HttpApiAgentSchema.parse({ kind: 'http_api', base_url: mock.baseUrl, model: 'm' });
    const outcome = await new HttpApiBackend({ name: 'llm', config, env: {} }).run(makeTurn(), recorder().reporter);
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
  });

  it('inlines text attachments before the decision contract', async () => {
    const text = withDecisionContract('review this');
    await backend().run(
      makeTurn({
        text,
        attachments: [
          {
            kind: 'file',
            file: { name: 'a.txt', mimeType: 'text/plain', bytes: Buffer.from('file body').toString('base64') },
          },
        ],
      }),
      recorder().reporter,
    );
    const sent = mock.requests[0]!.body.messages[0].content as string;
    expect(sent).toContain('Attached file a.txt:\nfile body');
    expect(sent.endsWith(withDecisionContract(''))).toBe(true);
  });
});

describe('retryAfterOf', () => {
  it('reads seconds, HTTP dates and retry-after-ms', () => {
    expect(retryAfterOf(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterOf(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterOf(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000);
    expect(retryAfterOf(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterOf(new Headers())).toBeUndefined();
  });
});
