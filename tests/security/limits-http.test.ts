/**
 * The limits and the audit log as a client meets them, on real bridges: the rate limit per caller
 * (-32065 with retryAfterMs), the global concurrency cap across real agent processes, the audit trail of
 * tasks and refusals (never the token), and history pruning at startup.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deriveAgentToken } from '../../main/transport/caller-tokens.js';
import { createBridge } from '../../main/wiring/wiring.js';
import { postRaw } from '../integration/http-raw.js';
import { ECHO_AGENT, startTestBridge, tempDir, type TestBridge, type TestBridgeOptions } from '../helpers/bridge.js';
import { pollUntil } from '../helpers/wait.js';
import { nodeFixture } from './attack-agents.js';

let open: TestBridge[] = [];
afterEach(async () => {
  for (const tb of open) await tb.cleanup();
  open = [];
});
async function bridge(opts: TestBridgeOptions): Promise<TestBridge> {
  const tb = await startTestBridge({ agents: { echo: nodeFixture(ECHO_AGENT) }, ...opts, isolatedEnv: true });
  open.push(tb);
  return tb;
}
const auditOf = (tb: TestBridge) =>
  readFileSync(path.join(tb.dataDir, 'audit', 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function untilAllDone(tb: TestBridge): Promise<void> {
  await pollUntil(
    () => tb.rpc('tasks/list', { states: ['submitted', 'working'], pageSize: 1 }),
    (res) => res.result?.totalSize === 0,
    'every task to finish',
  );
}

describe('rate_limit_per_minute', () => {
  it('refuses a caller over its rate with -32065 and retryAfterMs, and audits it; other agents are counted apart', async () => {
    const tb = await bridge({
      agents: { echo: nodeFixture(ECHO_AGENT), codex: nodeFixture(ECHO_AGENT) },
      config: { rate_limit_per_minute: 5 },
    });
    for (let i = 0; i < 5; i += 1) expect((await tb.rpc('agents/list')).result).toBeDefined();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'agents/list', params: {} });
    const limited = await postRaw(tb.url, tb.token, body);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const error = limited.json().error;
    expect(error.code).toBe(-32065);
    expect(error.data.retryAfterMs).toBeGreaterThan(0);
    expect(error.data.retryAfterMs).toBeLessThanOrEqual(12_000);

    // Naming another agent as callerAgent does not open another budget.
    const named = await tb.rpc('message/send', { agent: 'echo', text: 'hi', callerAgent: 'codex' });
    expect(named.error?.code).toBe(-32065);
    // An agent the bridge started, calling with its own (derived) token, has its own budget.
    const fromAgent = await tb.rpc(
      'message/send',
      { agent: 'echo', text: 'hi' },
      { headers: { authorization: `Bearer ${deriveAgentToken(tb.token, 'codex')}` } },
    );
    expect(fromAgent.result.status.state).toBe('completed');
    expect(auditOf(tb).filter((e) => e.type === 'request.refused')).toEqual([
      expect.objectContaining({ reason: 'rate-limited', status: 429, caller: 'install' }),
      expect.objectContaining({ reason: 'rate-limited', status: 429, caller: 'install' }),
    ]);
  });
});

describe('max_body_bytes', () => {
  it('answers 413 to oversized bodies still being uploaded, and the connection stays usable', async () => {
    const tb = await bridge({ config: { max_body_bytes: 64 * 1024 } });
    // Before the rest of a refused body was read, a client still uploading stalled until the keep-alive
    // timer reset the connection (ECONNRESET instead of the 413).
    for (const size of [70_000, 300_000, 1_000_000, 400_000, 2_000_000]) {
      const res = await fetch(`${tb.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${tb.token}` },
        body: `[${'['.repeat(size / 2)}${']'.repeat(size / 2)}]`,
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
      expect((await tb.rpc('agents/list')).result.agents).toHaveLength(1);
    }
  });
});

describe('max_concurrent_tasks', () => {
  it('never runs more agent processes at once than the cap, and completes every task', async () => {
    const dir = tempDir();
    const env = { RUN_LOG: path.join(dir, 'runs.log'), EXCLUSIVE_DIR: path.join(dir, 'one-at-a-time'), SLEEP_MS: '80' };
    const agent = nodeFixture('record-run.mjs', { env });
    const tb = await bridge({ dir, agents: { a: agent, b: agent, c: agent }, config: { max_concurrent_tasks: 1 } });
    const sends = ['a', 'b', 'c'].flatMap((agentName) =>
      [1, 2, 3].map((i) =>
        tb.rpc('message/send', { agent: agentName, text: `${i}`, configuration: { blocking: false } }),
      ),
    );
    const ids = (await Promise.all(sends)).map((r) => r.result.id as string);
    await untilAllDone(tb);
    for (const id of ids) expect((await tb.rpc('tasks/get', { id })).result.status.state).toBe('completed');
    const runs = readFileSync(env.RUN_LOG, 'utf8').trim().split('\n');
    expect(runs.filter((l) => l.startsWith('OVERLAP'))).toEqual([]);
    expect(runs).toHaveLength(9);
  });
});

describe('the audit log, end to end', () => {
  it('records task life and refusals, and never the token', async () => {
    const tb = await bridge({ agents: { echo: nodeFixture(ECHO_AGENT, { append_decision_contract: true }) } });
    const done = await tb.rpc('message/send', { agent: 'echo', text: 'decide: YAML|TOML' });
    expect(done.result.status.state).toBe('input-required');
    await tb.rpc('tasks/answer', { taskId: done.result.id, answer: 'TOML', answeredBy: 'alice' });
    const unknown = await tb.rpc('message/send', { agent: 'echo', text: 'x', visitedAgents: ['echo'] });
    expect(unknown.result.status.state).toBe('rejected');
    const wrong = await postRaw(
      tb.url,
      `${tb.token}x`,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list' }),
    );
    expect(wrong.status).toBe(401);
    await untilAllDone(tb);
    await tb.stop();

    const entries = auditOf(tb);
    const ofTask = entries.filter((e) => e.taskId === done.result.id).map((e) => e.type);
    expect(ofTask).toEqual(['task.created', 'task.input-required', 'task.answered', 'task.completed']);
    expect(entries.find((e) => e.type === 'task.answered')).toMatchObject({
      by: 'person (token: alice)',
      answer: 'TOML',
      pendingKind: 'decision',
    });
    expect(entries.filter((e) => e.taskId === unknown.result.id).map((e) => e.type)).toEqual(['task.created']);
    expect(entries.find((e) => e.taskId === unknown.result.id)).toMatchObject({ state: 'rejected' });
    expect(entries.filter((e) => e.type === 'request.refused')).toEqual([
      expect.objectContaining({ reason: 'unauthorized', status: 401 }),
    ]);
    for (const file of [path.join(tb.dataDir, 'audit', 'audit.jsonl'), path.join(tb.dataDir, 'logs', 'bridge.log')]) {
      expect(readFileSync(file, 'utf8')).not.toContain(tb.token);
    }
  });
});

describe('history pruning', () => {
  it('deletes finished tasks beyond history.max_tasks at startup, keeping the newest', async () => {
    const tb = await bridge({});
    const ids: string[] = [];
    for (let i = 0; i < 4; i += 1) ids.push((await tb.rpc('message/send', { agent: 'echo', text: `t${i}` })).result.id);
    await tb.stop();
    const config = readFileSync(tb.configPath, 'utf8');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(tb.configPath, `${config}history:\n  max_age_days: 90\n  max_tasks: 2\n`);
    const again = await createBridge({ configPath: tb.configPath, env: { PATH: process.env.PATH, HOME: tb.dir } });
    await again.start();
    try {
      const res = await fetch(`${again.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${again.token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/list', params: { pageSize: 10 } }),
      });
      const kept = ((await res.json()) as { result: { tasks: { id: string }[] } }).result.tasks.map((t) => t.id);
      expect(kept.sort()).toEqual(ids.slice(2).sort());
    } finally {
      await again.stop();
    }
  });
});
