/**
 * The ACP `initialize` probe against real agent processes (the SDK-built fake agents): what they declare,
 * why they could not be reached (with their stderr and a fix), and that the process is gone afterwards.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { probeAcpAgent, type AcpProbeResult } from '../../main/cli/doctor/acp-probe.js';
import { probeCheck } from '../../main/cli/doctor/acp-probe-report.js';
import { isAlive } from '../../main/cli/bridge-client/pid.js';
import { AcpAgentSchema } from '../../main/schema/config.js';
import { eventually } from '../helpers/wait.js';
import { FAKE_ACP_AGENT, PROBE_AGENT } from './stand-ins.js';

let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'contactor-probe-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function probe(
  command: string[],
  extra: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs?: number,
) {
  const config = AcpAgentSchema.parse({ kind: 'acp', command, ...extra });
  return probeAcpAgent({ name: 'a', config, env, clientVersion: '9.9.9', ...(timeoutMs ? { timeoutMs } : {}) });
}

function failed(result: AcpProbeResult): Extract<AcpProbeResult, { ok: false }> {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

describe('probeAcpAgent', () => {
  it('reports what the agent declares: protocol version, agentInfo, auth methods, capabilities', async () => {
    const result = await probe([process.execPath, FAKE_ACP_AGENT, '--auth-on-new']);
    expect(result).toMatchObject({
      ok: true,
      via: 'direct',
      declared: {
        protocolVersion: 1,
        agentInfo: { name: 'fake-agent', version: '1.0.0' },
        authMethods: [{ id: 'login', name: 'Log in with Fake', description: 'run `fake login` in a terminal' }],
        capabilities: { loadSession: false },
      },
      stdoutNoise: [],
    });
    expect(result.launch).toBe(`${process.execPath} ${FAKE_ACP_AGENT} --auth-on-new`);
  });

  it("starts the agent with the bridge's environment, not the shell's, and leaves no process behind (SIGTERM ignored)", async () => {
    const pidFile = path.join(dir, 'pid');
    const env = { ...process.env, LEAKY: 'from-the-shell' };
    const result = await probe(
      [process.execPath, PROBE_AGENT, '--ignore-sigterm'],
      { env: { PROBE_PID_FILE: pidFile } },
      env,
    );
    expect(result).toMatchObject({ ok: true, declared: { agentInfo: { title: 'leak=none', version: '2.0.0' } } });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(false);
  });

  it('an agent that exits at start: the exit code, its stderr and how to see it', async () => {
    const result = failed(await probe([process.execPath, FAKE_ACP_AGENT, '--exit-on-start']));
    expect(result.reason).toBe(
      `${process.execPath} ${FAKE_ACP_AGENT} --exit-on-start exited during initialize (exit code 2): fatal: fake agent has no config`,
    );
    expect(result.stderrTail).toBe('fatal: fake agent has no config');
    expect(result.fix).toContain('in a terminal to see why it stops');
  });

  it('a Node agent that dies at start: the error line above its stack frames, not the frames alone', async () => {
    const result = failed(await probe([process.execPath, FAKE_ACP_AGENT, '--crash-like-node']));
    expect(result.reason).toBe(
      `${process.execPath} ${FAKE_ACP_AGENT} --crash-like-node exited during initialize (exit code 1): Error: Cannot find module '/opt/agent/dist/index.js'`,
    );
  });

  it('a program that is not there: ENOENT and where to put the full path', async () => {
    const result = failed(await probe(['no-such-acp-agent-here']));
    expect(result.reason).toContain('could not start no-such-acp-agent-here');
    expect(result.reason).toContain('ENOENT');
    expect(result.fix).toBe('install the agent, or put its full path in config.yaml (agents.a.command)');
  });

  it('an agent that never answers: a timeout naming ACP mode; stdout chatter is shown as the likely cause', async () => {
    const silent = failed(await probe([process.execPath, '-e', 'setInterval(() => {}, 1000)'], {}, process.env, 500));
    expect(silent.reason).toBe('no answer to initialize within 0.5 s');
    expect(silent.fix).toContain('ACP mode');
    // The probe's bound runs on fake timers and ends only once the agent has printed its banner: a Node start on
    // a loaded machine takes longer than any fixed bound.
    const printed = path.join(dir, 'banner-printed');
    const banner = `console.log("Welcome to Agent 3000"); require("node:fs").writeFileSync(${JSON.stringify(printed)}, "")`;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let probing: Promise<AcpProbeResult>;
    try {
      probing = probe([process.execPath, '-e', `${banner}; setInterval(() => {}, 1000)`], {}, process.env, 500);
      await eventually(() => existsSync(printed), 'the agent to print its banner');
      // Two turns of the event loop: the banner line, on stdout before the file was written, has been read.
      for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      vi.advanceTimersByTime(500);
    } finally {
      // At once, before the probe goes on: its clean-up (stopping the agent) runs on the real clock.
      vi.useRealTimers();
    }
    const chatty = failed(await probing);
    expect(chatty.stdoutNoise).toEqual(['Welcome to Agent 3000']);
    expect(chatty.fix).toContain('"Welcome to Agent 3000"');
  });

  it("waits the agent's own start_timeout_s, the wait the bridge allows (not a fixed 10 s)", async () => {
    const silent = failed(
      await probe([process.execPath, FAKE_ACP_AGENT, '--never-initialize'], { start_timeout_s: 1 }),
    );
    expect(silent.reason).toBe('no answer to initialize within 1 s');
    expect(silent.fix).toContain('agents.a.start_timeout_s');
  });

  it('an agent slow to start but within its start timeout passes, saying it is slow', async () => {
    const result = await probe([process.execPath, FAKE_ACP_AGENT, '--slow-initialize=1500']);
    if (!result.ok) throw new Error(result.reason);
    expect(result.startMs).toBeGreaterThanOrEqual(1500);
    // The threshold is the test's (doctor's is SLOW_START_MS), so a real 10 s wait is not needed.
    const check = probeCheck('a', result, 1000);
    expect(check.status).toBe('ok');
    expect(check.detail).toMatch(/; slow to start \(\d+ s\)/);
    expect(probeCheck('a', result, 60_000).detail).not.toContain('slow');
  });

  it('a banner before the protocol is tolerated and reported', async () => {
    const result = await probe([process.execPath, FAKE_ACP_AGENT, '--banner=2']);
    expect(result).toMatchObject({ ok: true, stdoutNoise: ['banner line 0', 'banner line 1'] });
  });

  it('another protocol version is a failure that says which', async () => {
    const result = failed(await probe([process.execPath, FAKE_ACP_AGENT, '--protocol=2']));
    expect(result.reason).toBe('the agent speaks ACP protocol version 2; contactor speaks version 1');
  });
});
