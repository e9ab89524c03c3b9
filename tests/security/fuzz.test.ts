/**
 * A property-based fuzz of the JSON-RPC endpoint over real HTTP: random JSON, wrong types, huge strings,
 * deep nesting, batches, unicode (lone surrogates, raw invalid UTF-8). The bridge must answer every
 * request with valid JSON-RPC (or 204 for notifications, 413 for an oversized body), never with an
 * internal error, keep serving, and leave a store whose every task is whole.
 */
import fc from 'fast-check';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal } from '../../main/domain/task.js';
import { ECHO_AGENT, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';
import { expectConsistentStore, expectRpcResponse } from './rpc-check.js';

const RUNS = Number(process.env.CONTACTOR_FUZZ_RUNS ?? 300);
const MAX_BODY = 256 * 1024;
const METHODS = [
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/answer',
  'tasks/list',
  'tasks/resubscribe',
  'pending/list',
  'agents/list',
  'agents/card',
  'agent/discover',
  'tasks/pushNotificationConfig/set',
  'SendMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
];

let tb: TestBridge;
const figures = { requests: 0, batches: 0, notifications: 0, oversized: 0, streams: 0 };

beforeAll(async () => {
  tb = await startTestBridge({
    isolatedEnv: true,
    agents: { echo: nodeFixture(ECHO_AGENT) },
    config: { max_body_bytes: MAX_BODY, rate_limit_per_minute: 10_000_000 },
  });
});
afterAll(async () => {
  await tb?.cleanup();
});

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom('\ud800', 'a\udfffb', '\u0000', '\u202e', '𝄞'.repeat(1000), 'x'.repeat(100_000)),
);
const id = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 20 }),
  fc.constant(null),
  fc.double(),
  fc.constant({}),
  fc.boolean(),
);
const shortJson = fc.jsonValue({ maxDepth: 3 });
const sendParams = fc.record(
  {
    agent: fc.oneof(fc.constant('echo'), fc.constant('nobody'), fc.string({ maxLength: 8 }), fc.integer()),
    text: fc.oneof(text, fc.integer(), fc.constant(null)),
    messageId: fc.oneof(fc.uuid(), fc.constant('fixed-id'), fc.integer()),
    contextId: fc.oneof(fc.uuid(), fc.string({ maxLength: 5 })),
    delegationDepth: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.string()),
    visitedAgents: fc.oneof(fc.array(fc.constantFrom('echo', 'x')), fc.string()),
    configuration: fc.oneof(fc.constant({ blocking: false }), shortJson),
  },
  { requiredKeys: [] },
);
const standardParams = fc.record(
  {
    message: fc.record(
      {
        messageId: fc.oneof(fc.uuid(), fc.integer()),
        role: fc.constantFrom('user', 'agent', 'robot'),
        parts: fc.oneof(
          fc.array(
            fc.record(
              { kind: fc.constantFrom('text', 'file', 'data', 'x'), text, data: shortJson },
              { requiredKeys: ['kind'] },
            ),
            { maxLength: 3 },
          ),
          shortJson,
        ),
        taskId: fc.string({ maxLength: 10 }),
        metadata: shortJson,
      },
      { requiredKeys: [] },
    ),
    metadata: fc.oneof(fc.constant({ agent: 'echo' }), shortJson),
    configuration: fc.constant({ blocking: false }),
  },
  { requiredKeys: [] },
);
const params = fc.oneof(
  sendParams,
  standardParams,
  shortJson,
  fc.record(
    { id: fc.oneof(fc.uuid(), text), taskId: fc.uuid(), answer: fc.oneof(text, fc.integer()) },
    { requiredKeys: [] },
  ),
);
const request = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, fc.constant('1.0'), fc.constant(2)),
    id,
    method: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...METHODS) }, fc.string({ maxLength: 30 }), fc.integer()),
    params,
  },
  { requiredKeys: ['jsonrpc', 'method'] },
);
const nested = fc.integer({ min: 1, max: 200_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);
const deepParams = fc
  .integer({ min: 1_000, max: 50_000 })
  .map(
    (depth) =>
      `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"agent":"echo","text":"deep","configuration":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}`,
  );

/** Mostly-valid sends and streams, so the fuzz also drives real tasks through the agent and the store. */
const validSend = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.integer(),
  method: fc.constantFrom('message/send', 'message/stream'),
  params: fc.record(
    {
      agent: fc.constant('echo'),
      text,
      messageId: fc.oneof(fc.uuid(), fc.constantFrom('replayed-1', 'replayed-2')),
      configuration: fc.constant({ blocking: false }),
    },
    { requiredKeys: ['agent', 'text'] },
  ),
});

type Body = { kind: 'text'; body: string } | { kind: 'bytes'; body: Buffer };
const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 4, arbitrary: validSend.map((r) => ({ kind: 'text' as const, body: JSON.stringify(r) })) },
  { weight: 10, arbitrary: request.map((r) => ({ kind: 'text' as const, body: JSON.stringify(r) })) },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(request, shortJson), { maxLength: 12 })
      .map((b) => ({ kind: 'text' as const, body: JSON.stringify(b) })),
  },
  { weight: 2, arbitrary: fc.jsonValue().map((v) => ({ kind: 'text' as const, body: JSON.stringify(v) ?? 'null' })) },
  { weight: 1, arbitrary: text.map((t) => ({ kind: 'text' as const, body: t })) },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 2000 }).map((b) => ({ kind: 'bytes' as const, body: Buffer.from(b) })),
  },
  { weight: 1, arbitrary: nested.map((n) => ({ kind: 'text' as const, body: n })) },
  { weight: 1, arbitrary: deepParams.map((n) => ({ kind: 'text' as const, body: n })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: MAX_BODY + 1, max: MAX_BODY * 3 }).map((n) => ({
      kind: 'text' as const,
      body: `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"agent":"echo","text":"${'y'.repeat(n)}"}}`,
    })),
  },
);

/** A single request with no id that passes the envelope: JSON-RPC says it gets no response. */
function isNotification(item: unknown): boolean {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return false;
  const r = item as Record<string, unknown>;
  return r.jsonrpc === '2.0' && typeof r.method === 'string' && r.method !== '' && !('id' in r);
}

async function post(b: Body): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${tb.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}` },
    body: b.body,
    signal: AbortSignal.timeout(20_000),
  });
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    // A stream runs until its task ends; its first event is enough to check the framing.
    const reader = res.body!.getReader();
    let received = '';
    while (!/\ndata: .*\n\n/.test(received)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      received += new TextDecoder().decode(chunk.value);
    }
    await reader.cancel();
    return { status: res.status, type, text: received };
  }
  return { status: res.status, type, text: await res.text() };
}

function check(b: Body, res: { status: number; type: string; text: string }): void {
  const context = `${b.kind === 'text' ? b.body.slice(0, 300) : `<${b.body.length} bytes>`} → ${res.status} ${res.text.slice(0, 300)}`;
  figures.requests += 1;
  if (res.type.startsWith('text/event-stream')) {
    figures.streams += 1;
    expect(res.status, context).toBe(200);
    const data = /\ndata: (.*)\n\n/.exec(res.text)?.[1];
    expect(data, context).toBeDefined();
    expectRpcResponse(JSON.parse(data!), context);
    return;
  }
  const size = Buffer.byteLength(b.body);
  if (size > MAX_BODY) {
    figures.oversized += 1;
    expect(res.status, context).toBe(413);
    expectRpcResponse(JSON.parse(res.text), context);
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(b.kind === 'text' ? b.body : b.body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  const silent = parsed !== undefined && items.length > 0 && items.every(isNotification);
  if (silent) {
    figures.notifications += 1;
    expect(res.status, context).toBe(204);
    expect(res.text, context).toBe('');
    return;
  }
  expect(res.status, context).toBe(200);
  const answer = JSON.parse(res.text) as unknown;
  const answers = Array.isArray(answer) ? answer : [answer];
  if (Array.isArray(answer)) {
    figures.batches += 1;
    expect(Array.isArray(parsed) && parsed.length > 0, context).toBe(true);
    figures.requests += (parsed as unknown[]).length - 1;
  }
  for (const a of answers) {
    expectRpcResponse(a, context);
    // Internal errors mean an input reached code that did not expect it.
    expect((a as { error?: { code: number } }).error?.code, context).not.toBe(-32603);
  }
  if (
    !Array.isArray(parsed) &&
    parsed &&
    typeof parsed === 'object' &&
    ['string', 'number'].includes(typeof (parsed as { id?: unknown }).id) &&
    (parsed as { jsonrpc?: unknown }).jsonrpc === '2.0'
  ) {
    expect((answer as { id: unknown }).id, context).toBe((parsed as { id: unknown }).id);
  }
}

describe('JSON-RPC fuzz', () => {
  it(`answers ${RUNS} random requests with valid JSON-RPC and keeps a consistent store`, async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => check(b, await post(b))),
      { numRuns: RUNS, endOnFailure: true },
    );

    expect((await fetch(`${tb.url}/health`)).status).toBe(200);
    // Let the tasks the fuzz started finish, then read every one back through the API.
    const deadline = Date.now() + 60_000;
    let open = Infinity;
    while (open > 0 && Date.now() < deadline) {
      const page = await tb.rpc('tasks/list', { states: ['submitted', 'working'], pageSize: 1 });
      open = page.result.totalSize;
      if (open > 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(open).toBe(0);
    let pageToken = '';
    let listed = 0;
    do {
      const page = await tb.rpc('tasks/list', { pageSize: 100, pageToken });
      for (const task of page.result.tasks as { id: string }[]) {
        const got = await tb.rpc('tasks/get', { id: task.id });
        expect(got.result.id).toBe(task.id);
        expect(isTerminal(got.result.status.state) || got.result.status.state === 'input-required').toBe(true);
        listed += 1;
      }
      pageToken = page.result.nextPageToken;
    } while (pageToken);

    await tb.stop();
    const store = expectConsistentStore(path.join(tb.dataDir, 'contactor.db'));
    expect(store.tasks).toBe(listed);
    console.info(
      `fuzz figures: ${JSON.stringify({ runs: RUNS, ...figures, tasksChecked: store.tasks, eventsChecked: store.events })}`,
    );
  }, 240_000);
});
