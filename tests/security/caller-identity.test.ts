/**
 * Caller identity and budgets, as an attacker tried it on a real bridge: a client-chosen `callerAgent` selecting its
 * own rate-limit bucket, one batch of thousands of calls charged as one minute, a batch of `tasks/list`
 * with artifacts that grew to gigabytes and ended in a bare HTTP 500; and the fix's other half, each
 * agent's own derived token, from which the bridge knows the caller for the loop guards.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { MAX_BATCH_REQUESTS } from '../../main/transport/response-size.js';
import { postRaw } from '../integration/http-raw.js';
import {
  ECHO_AGENT,
  fakeAcpAgent,
  startTestBridge,
  type TestBridge,
  type TestBridgeOptions,
} from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';

let open: TestBridge[] = [];
afterEach(async () => {
  for (const tb of open) await tb.cleanup();
  open = [];
});
async function bridge(opts: TestBridgeOptions): Promise<TestBridge> {
  const tb = await startTestBridge({ ...opts, isolatedEnv: true });
  open.push(tb);
  return tb;
}
const call = (id: number, method: string, params: unknown = {}) => ({ jsonrpc: '2.0', id, method, params });

describe('identity from the token', () => {
  it('gives each agent its own token derived from the install token, never the install token itself', async () => {
    // The agent prints a hash of its token: the token itself never appears in a reply.
    const hashToken =
      "process.stdout.write(require('crypto').createHash('sha256').update(process.env.CONTACTOR_TOKEN).digest('hex'))";
    const tb = await bridge({
      agents: {
        dump: { kind: 'subprocess_cli', command: [process.execPath, '-e', hashToken], append_decision_contract: false },
      },
    });
    const res = await tb.rpc('message/send', { agent: 'dump', text: 'x' });
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    expect(res.result.artifacts[0].parts[0].text).toBe(sha(deriveAgentToken(tb.token, 'dump')));
    expect(res.result.artifacts[0].parts[0].text).not.toBe(sha(tb.token));
  });

  it('knows the calling agent from its token: a send back to itself is a loop, whatever the params say', async () => {
    const tb = await bridge({ agents: { echo: nodeFixture(ECHO_AGENT), other: nodeFixture(ECHO_AGENT) } });
    const asEcho = { headers: { authorization: `Bearer ${deriveAgentToken(tb.token, 'echo')}` } };
    // No callerAgent at all, then a lie about it: both are echo calling echo.
    for (const params of [
      { agent: 'echo', text: 'x' },
      { agent: 'echo', text: 'x', callerAgent: 'other' },
    ]) {
      const res = await tb.rpc('message/send', params, asEcho);
      expect(res.result.status.state).toBe('rejected');
      expect(res.result.status.message.parts[0].text).toContain('delegation loop');
    }
    const standard = await tb.rpc(
      'message/send',
      { message: { role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'x' }] }, metadata: { agent: 'echo' } },
      asEcho,
    );
    expect(standard.result.status.state).toBe('rejected');
    // The same agent may still call another one.
    expect((await tb.rpc('message/send', { agent: 'other', text: 'x' }, asEcho)).result.status.state).toBe('completed');
    // A token derived for a name that is not configured is no token at all.
    const stranger = await tb.rpc(
      'agents/list',
      {},
      { headers: { authorization: `Bearer ${deriveAgentToken(tb.token, 'nobody')}` } },
    );
    expect(stranger.error?.code).toBe(-32066);
  });
});

describe('batches', () => {
  it('charges every request of a batch: a batch larger than the rate is refused whole', async () => {
    const tb = await bridge({ agents: { echo: nodeFixture(ECHO_AGENT) }, config: { rate_limit_per_minute: 20 } });
    const batch = Array.from({ length: 30 }, (_, i) => call(i + 1, 'agents/list'));
    const refused = await postRaw(tb.url, tb.token, JSON.stringify(batch));
    expect(refused.status).toBe(429);
    expect(refused.json().error.code).toBe(-32065);
    const fits = await postRaw(tb.url, tb.token, JSON.stringify(batch.slice(0, 15)));
    expect(fits.json()).toHaveLength(15);
    // 5 left this minute: a batch of 6 no longer passes.
    expect((await postRaw(tb.url, tb.token, JSON.stringify(batch.slice(0, 6)))).status).toBe(429);
  });

  it(`refuses a batch of more than ${MAX_BATCH_REQUESTS} requests with one -32600`, async () => {
    const tb = await bridge({ agents: { echo: nodeFixture(ECHO_AGENT) } });
    const batch = Array.from({ length: MAX_BATCH_REQUESTS + 1 }, (_, i) => call(i + 1, 'agents/list'));
    const res = await postRaw(tb.url, tb.token, JSON.stringify(batch));
    expect(res.json().error).toMatchObject({ code: -32600 });
    expect(res.json().error.message).toContain(`at most ${MAX_BATCH_REQUESTS}`);
  });
});

describe('response size', () => {
  // max_artifact_bytes 20 kB as base64 (26.7 kB) + 2 × max_body_bytes 20 kB + 64 KiB envelope ≈ 132 kB per response.
  const limits = { max_artifact_bytes: 20_000, max_body_bytes: 20_000 };
  const big = 'x'.repeat(15_000);

  async function bridgeWithTasks(n: number): Promise<{ tb: TestBridge; ids: string[] }> {
    const tb = await bridge({ agents: { echo: nodeFixture(ECHO_AGENT) }, config: limits });
    const ids: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const res = await tb.rpc('message/send', { agent: 'echo', text: `${i} ${big}` });
      expect(res.result.status.state).toBe('completed');
      ids.push(res.result.id as string);
    }
    return { tb, ids };
  }

  it('cuts a tasks/list page short with a next-page token; the pages together hold every task once', async () => {
    const { tb, ids } = await bridgeWithTasks(12);
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const res = await postRaw(
        tb.url,
        tb.token,
        JSON.stringify(call(1, 'tasks/list', { pageSize: 100, includeArtifacts: true, pageToken })),
      );
      expect(res.status).toBe(200);
      expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(20_000 + 40_000 + 64 * 1024);
      const page = res.json().result;
      expect(page.tasks.length).toBeGreaterThan(0);
      expect(page.tasks.length).toBeLessThan(12);
      seen.push(...page.tasks.map((t: { id: string }) => t.id));
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken && pages < 20);
    expect(pages).toBeGreaterThan(1);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it('serves one task whose files fill max_artifact_bytes: the cap counts decoded bytes, the reply carries base64', async () => {
    // 590 kB of image are 787 kB of base64: over max_artifact_bytes + 2 × max_body_bytes + 64 KiB (674 kB).
    const tb = await bridge({
      agents: { fake: fakeAcpAgent() },
      config: { max_artifact_bytes: 600_000, max_body_bytes: 4096 },
    });
    const sent = await tb.rpc('message/send', { agent: 'fake', text: 'big-image 590000' });
    expect(sent.error).toBeUndefined();
    expect(sent.result.status.state).toBe('completed');
    const got = await tb.rpc('tasks/get', { id: sent.result.id });
    expect(got.error).toBeUndefined();
    const image = got.result.artifacts[0].parts.find((p: { kind: string }) => p.kind === 'file');
    expect(Buffer.from(image.file.bytes as string, 'base64')).toHaveLength(590_000);
  });

  it('answers the rest of an oversized batch with JSON-RPC errors carrying their ids, never a bare 500', async () => {
    const { tb, ids } = await bridgeWithTasks(10);
    const batch = ids.map((id, i) => call(i + 1, 'tasks/get', { id }));
    const res = await postRaw(tb.url, tb.token, JSON.stringify(batch));
    expect(res.status).toBe(200);
    const replies = res.json() as { id: number; result?: unknown; error?: { code: number; message: string } }[];
    expect(replies.map((r) => r.id)).toEqual(batch.map((c) => c.id));
    const answered = replies.filter((r) => r.result !== undefined).length;
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(10);
    for (const r of replies.slice(answered)) {
      expect(r.error?.code).toBe(-32603);
      expect(r.error?.message).toContain('byte limit');
    }
  });
});
