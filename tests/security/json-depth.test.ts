/**
 * Metadata nested ~4,400 levels was stored and served to every reader. Requests are
 * refused past MAX_JSON_DEPTH at the edge (-32600, nothing stored); what agents report is cut there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capDepth, exceedsDepth, MAX_JSON_DEPTH, TOO_DEEP } from '../../main/domain/json-depth.js';
import { postRaw } from '../integration/http-raw.js';
import { ECHO_AGENT, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { FakeBackend } from '../fixtures/fake-backends.js';
import { Core } from '../runtime/core.js';
import { nodeFixture } from './attack-agents.js';

/** An object nested `levels` deep: {a: {a: ... {a: 1}}}. */
function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i += 1) v = { a: v };
  return v;
}

describe('exceedsDepth / capDepth', () => {
  it('measures nesting without recursion and cuts below the limit', () => {
    expect(exceedsDepth(nested(64), 64)).toBe(false);
    expect(exceedsDepth(nested(65), 64)).toBe(true);
    expect(exceedsDepth(nested(100_000), 64)).toBe(true);
    expect(exceedsDepth([[[1]]], 2)).toBe(true);
    expect(capDepth({ a: { b: { c: 1 } }, d: 2 }, 2)).toEqual({ a: { b: TOO_DEEP }, d: 2 });
    const shallow = { a: 1 };
    expect(capDepth(shallow, 2)).toBe(shallow);
  });
});

describe('at the edge', () => {
  let tb: TestBridge;
  beforeAll(async () => {
    tb = await startTestBridge({ agents: { echo: nodeFixture(ECHO_AGENT) }, isolatedEnv: true });
  });
  afterAll(() => tb?.cleanup());

  it('refuses a request nested past the limit with -32600 and stores nothing', async () => {
    for (const levels of [MAX_JSON_DEPTH + 1, 4400]) {
      // Written as text: a serializer would overflow its own stack first.
      const deep = `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
      const body = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"metadata":{"agent":"echo"},"message":{"role":"user","messageId":"deep-${levels}","parts":[{"kind":"text","text":"x"}],"metadata":${deep}}}}`;
      const res = (await postRaw(tb.url, tb.token, body)).json();
      expect(res.error?.code).toBe(-32600);
      expect(res.error?.message).toContain(`deeper than ${MAX_JSON_DEPTH}`);
    }
    expect((await tb.rpc('tasks/list', { pageSize: 10 })).result.totalSize).toBe(0);
    // Ordinary nesting still passes.
    const ok = await tb.rpc('message/send', {
      message: { role: 'user', messageId: 'ok', parts: [{ kind: 'text', text: 'x' }], metadata: nested(20) },
      metadata: { agent: 'echo' },
    });
    expect(ok.result.status.state).toBe('completed');
  });

  it('answers a deep item of a batch alone, with its id', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'agents/list', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'agents/list', params: nested(200) },
    ];
    const replies = (await postRaw(tb.url, tb.token, JSON.stringify(batch))).json();
    expect(replies[0].result).toBeDefined();
    expect(replies[1]).toMatchObject({ id: 2, error: { code: -32600 } });
  });
});

describe('from agents', () => {
  it('cuts structured data an agent reports before it is stored and served', async () => {
    const core = new Core();
    core.add(
      'deep',
      new FakeBackend(async (_turn, report) => {
        report.receipt({ agentInfo: nested(5000) as Record<string, unknown> });
        report.text('done');
        return { kind: 'completed' };
      }),
    );
    const task = await core.send('deep', 'x', { blocking: true });
    expect(exceedsDepth(task, MAX_JSON_DEPTH)).toBe(false);
    expect(JSON.stringify(task.metadata.receipt)).toContain(TOO_DEEP);
    await core.close();
  });
});
