/**
 * A changed ACP agent in a live config reload: its running process keeps its live session and open permission
 * question until they settle, while new work goes to a process started from the new definition. Real
 * fake ACP agent (SDK agent side), real HTTP, the config file edited and `config/reload` called.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeAcpAgent, startTestBridge, type RpcResponse, type TestBridge } from '../helpers/bridge.js';
import { waitForState } from '../helpers/wait.js';

let tb: TestBridge | undefined;
afterEach(async () => {
  await tb?.cleanup();
  tb = undefined;
});

function settled(b: TestBridge, id: string): Promise<RpcResponse['result']> {
  return waitForState(b, id, ['completed', 'failed', 'canceled']);
}

describe('reloading a changed ACP agent', () => {
  it('keeps the old process for its open question; new work starts a process from the new definition', async () => {
    tb = await startTestBridge({ agents: { fake: fakeAcpAgent() } });
    const asked = await tb.rpc('message/send', { agent: 'fake', text: 'permission' });
    expect(asked.result.status.state).toBe('input-required');
    const oldSession = (await tb.rpc('message/send', { agent: 'fake', text: 'sessions' })).result;
    // Same process: the question's session and this one.
    expect(oldSession.artifacts[0].parts[0].text.split(',')).toHaveLength(2);

    writeFileSync(
      tb.configPath,
      stringify({ port: 0, data_dir: tb.dataDir, agents: { fake: { ...fakeAcpAgent(), env: { DEFINITION: 'v2' } } } }),
    );
    const reload = await tb.rpc('config/reload', {});
    expect(reload.error).toBeUndefined();
    // The file watcher may have applied the edit a moment before: either way nothing was refused.
    expect(reload.result.error).toBeUndefined();

    // A new process: it knows only the session this task opened.
    const fresh = (await tb.rpc('message/send', { agent: 'fake', text: 'sessions' })).result;
    expect(fresh.status.state).toBe('completed');
    expect(fresh.artifacts[0].parts[0].text.split(',')).toHaveLength(1);

    // The old process still holds the question: answering it finishes the task there.
    const answered = await tb.rpc('tasks/answer', { taskId: asked.result.id, answer: 'yes' });
    expect(answered.error).toBeUndefined();
    const done = await settled(tb, asked.result.id);
    expect(done.status.state).toBe('completed');
    expect(JSON.stringify(done.artifacts)).toContain('outcome=allow');
  });
});

describe('reloading max_artifact_bytes', () => {
  it('raises the response bound with the cap: a reply the raised cap keeps can be served', async () => {
    tb = await startTestBridge({
      agents: { fake: fakeAcpAgent() },
      config: { max_artifact_bytes: 20_000, max_body_bytes: 4096 },
    });
    const config = parse(readFileSync(tb.configPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(tb.configPath, stringify({ ...config, max_artifact_bytes: 200_000 }));
    const reload = await tb.rpc('config/reload', {});
    expect(reload.result.error).toBeUndefined();
    expect(reload.result.restartNeeded).toEqual([]);

    // 150 kB of reply: within the raised cap, past the bound the first cap gave (about 100 kB).
    const sent = await tb.rpc('message/send', { agent: 'fake', text: 'long 150000' });
    expect(sent.error).toBeUndefined();
    expect(sent.result.artifacts[0].parts[0].text).toHaveLength(150_000);
    const listed = await tb.rpc('tasks/list', { includeArtifacts: true });
    expect(listed.error).toBeUndefined();
    expect(listed.result.tasks).toHaveLength(1);
  });
});

describe('reloading a removed agent', () => {
  it('keeps its token valid while its running task finishes: the agent can still call the bridge', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'contactor-removed-'));
    const go = path.join(dir, 'go');
    // Waits for the test's signal, then calls the bridge with its own token and prints the HTTP status.
    const script = [
      "const fs = require('fs');",
      `const go = ${JSON.stringify(go)};`,
      'const wait = () => (fs.existsSync(go) ? call() : setTimeout(wait, 20));',
      'const call = () => fetch(process.env.CONTACTOR_URL + "/", {',
      "  method: 'POST',",
      "  headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.CONTACTOR_TOKEN },",
      "  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'agents/list', params: {} }),",
      '}).then((r) => process.stdout.write(String(r.status)));',
      'wait();',
    ].join('\n');
    const leaving = {
      kind: 'subprocess_cli',
      command: [process.execPath, '-e', script],
      append_decision_contract: false,
    };
    tb = await startTestBridge({ agents: { leaving, fake: fakeAcpAgent() } });
    try {
      const sent = await tb.rpc('message/send', { agent: 'leaving', text: 'x', configuration: { blocking: false } });
      expect(sent.error).toBeUndefined();
      // Running, not queued: a queued task of a removed agent fails instead (config-reload.test.ts).
      await waitForState(tb, sent.result.id, 'working');
      const config = parse(readFileSync(tb.configPath, 'utf8')) as { agents: Record<string, unknown> };
      writeFileSync(tb.configPath, stringify({ ...config, agents: { fake: config.agents.fake } }));
      // The watcher may have applied the edit already; `config/reload` applies it now either way.
      const reload = await tb.rpc('config/reload', {});
      expect(reload.result.error).toBeUndefined();
      const agents = (await tb.rpc('agents/list', {})).result.agents as { name: string }[];
      expect(agents.map((a) => a.name)).toEqual(['fake']);

      writeFileSync(go, '');
      const done = await settled(tb, sent.result.id);
      expect(done.status.state).toBe('completed');
      expect(done.artifacts[0].parts[0].text).toBe('200');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
