/** `contactor token --agent NAME`: an external agent's own token, which the bridge takes as that agent (at /mcp too). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, runCli } from './run-cli.js';

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startTestBridge();
});
afterAll(() => bridge?.cleanup());

describe('contactor token --agent', () => {
  it("prints a token the bridge takes as that external agent, from the data dir's install token", async () => {
    // CONTACTOR_TOKEN is an agent's own token inside an agent: the external token is never made from it.
    const run = await runCli(['--data-dir', bridge.dataDir, 'token', '--agent', 'claude-code'], {
      env: bridgeEnv(bridge, { CONTACTOR_TOKEN: 'not-the-install-token' }),
    });
    expect(run.code, run.stderr).toBe(0);
    const token = run.stdout.trim();
    expect(token).toMatch(/^ext\.claude-code\.[A-Za-z0-9_-]{43}$/);
    const res = await fetch(bridge.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { agent: 'echo', text: 'hi' } }),
    });
    const body = (await res.json()) as { result: { metadata: { createdBy: string } } };
    expect(body.result.metadata.createdBy).toBe('agent:claude-code');
  });

  it('refuses a name outside the agent-name rule (exit 2)', async () => {
    const run = await runCli(['--data-dir', bridge.dataDir, 'token', '--agent', 'a b'], { env: bridgeEnv(bridge) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not an agent name');
  });
});
