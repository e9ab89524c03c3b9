/**
 * A task may name the agent's working directory (inside its allowed roots: tests/security/cwd-confinement);
 * without one the agent's configured cwd applies.
 */
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { bridgeEnv, runCli } from '../cli/run-cli.js';

let b: TestBridge;
const configured = realpathSync(mkdtempSync(path.join(tmpdir(), 'contactor-cfg-cwd-')));
const requested = realpathSync(mkdtempSync(path.join(tmpdir(), 'contactor-task-cwd-')));

beforeAll(async () => {
  b = await startTestBridge({
    agents: { here: fixtureAgent('print-cwd.mjs', { cwd: configured, allowed_cwds: [configured, requested] }) },
  });
});
afterAll(() => b?.cleanup());

const reply = (task: { artifacts: { parts: { text?: string }[] }[] }) => task.artifacts[0]?.parts[0]?.text?.trim();

describe('task working directory', () => {
  it('runs in the configured cwd by default and in the task cwd when one is named', async () => {
    expect(reply((await b.rpc('message/send', { agent: 'here', text: 'where?' })).result)).toBe(configured);
    const sent = await b.rpc('message/send', { agent: 'here', text: 'where?', cwd: requested });
    expect(reply(sent.result)).toBe(requested);
    expect(sent.result.metadata.cwd).toBe(requested);
  });

  it('takes the cwd from A2A metadata too, and refuses a relative one naming the field', async () => {
    const standard = await b.rpc('message/send', {
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text: 'where?' }],
      },
      metadata: { agent: 'here', cwd: requested },
    });
    expect(reply(standard.result)).toBe(requested);
    const bad = await b.rpc('message/send', { agent: 'here', text: 'x', cwd: 'relative/dir' });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.message).toContain('cwd');
  });

  it('counts the cwd as part of the request: the same messageId with another cwd is a conflict', async () => {
    const messageId = crypto.randomUUID();
    const first = await b.rpc('message/send', { agent: 'here', text: 'where?', messageId, cwd: requested });
    const replay = await b.rpc('message/send', { agent: 'here', text: 'where?', messageId, cwd: requested });
    expect(replay.result.id).toBe(first.result.id);
    const other = await b.rpc('message/send', { agent: 'here', text: 'where?', messageId, cwd: configured });
    expect(other.error?.code).toBe(-32061);
  });

  it('contactor send --cwd resolves the path and the agent runs there', async () => {
    const run = await runCli(['send', 'here', 'where?', '--cwd', requested], { env: bridgeEnv(b) });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(requested);
  });
});
