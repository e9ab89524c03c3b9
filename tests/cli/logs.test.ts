/**
 * `contactor logs <agent>`: an agent's stderr as the bridge kept it, from a real bridge running the fake ACP
 * agent, with the agent's own token (which it printed) removed. `doctor` shows the last warnings of an agent
 * whose probe fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fakeAcpAgent, startTestBridge, type TestBridge } from '../helpers/bridge.js';
import { cleanEnv, runCli } from './run-cli.js';

let dir: string;
let env: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'contactor-logs-'));
  env = cleanEnv(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("shows the agent's stderr, redacted, and doctor shows its last warnings when its probe fails", async () => {
  const bridge: TestBridge = await startTestBridge({ agents: { fake: fakeAcpAgent() } });
  try {
    const sent = await bridge.rpc(
      'message/send',
      {
        message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'warn-stderr' }] },
        configuration: { blocking: true },
      },
      { path: '/agents/fake' },
    );
    expect(sent.result).toMatchObject({ status: { state: 'completed' } });
    const run = await runCli(['logs', 'fake', '-c', bridge.configPath], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /\[\d+\] WARNING: proceeding, even though we could not update PATH \(token=\[REDACTED\]\)/,
    );
    expect(run.stdout).toMatch(/\[\d+\] session s-1 cwd=/);
    // The agent printed its own derived token: the log must not keep it.
    const token = /token=([^)]+)\)/.exec(run.stdout)?.[1];
    expect(token).toBe('[REDACTED]');

    // The same agent now fails to start: doctor's failed probe shows what it last warned about.
    const broken = path.join(dir, 'broken.yaml');
    writeFileSync(
      broken,
      `data_dir: ${bridge.dataDir}\nagents:\n  fake: { kind: acp, command: [${JSON.stringify(process.execPath)}, -e, "process.exit(3)"] }\n`,
    );
    const doctor = await runCli(['doctor', '-c', broken], { env });
    expect(doctor.stdout).toMatch(/✗ acp fake: .*exited during initialize/);
    expect(doctor.stdout).toMatch(/log\| .*WARNING: proceeding, even though we could not update PATH/);
  } finally {
    await bridge.cleanup();
  }
});

it('an agent that is not in the config, or runs no process, is told apart from one with no stderr yet', async () => {
  const cfg = path.join(dir, 'kinds.yaml');
  writeFileSync(
    cfg,
    [
      `data_dir: ${JSON.stringify(path.join(dir, 'kinds-data'))}`,
      'agents:',
      `  fake: { kind: acp, command: [${JSON.stringify(process.execPath)}] }`,
      '  local: { kind: http_api, base_url: "http://127.0.0.1:1/v1", model: m }',
      '',
    ].join('\n'),
  );
  const nope = await runCli(['logs', 'nope', '-c', cfg], { env });
  expect(nope.code).toBe(2);
  expect(nope.stderr).toBe('contactor: no agent named "nope" in the config; agents: fake, local\n');
  const http = await runCli(['logs', 'local', '-c', cfg], { env });
  expect(http.code).toBe(2);
  expect(http.stderr).toBe(
    "contactor: agent local is an http_api agent: the bridge starts no process for it, so it has no stderr; a failed task's reason is in `contactor get <task>`\n",
  );
  const quiet = await runCli(['logs', 'fake', '-c', cfg], { env });
  expect(quiet.code).toBe(0);
  expect(quiet.stderr).toBe(
    `no stderr kept for agent fake yet (${path.join(dir, 'kinds-data', 'logs', 'agents', 'fake.log')})\n`,
  );
});
