/**
 * Escaped agent processes, as the attacker did it: an agent whose children leave its process group (`setsid`,
 * a double fork reparented to init) used to outlive its task (5 of 5), and after a kill -9 of the bridge
 * its running agents were orphaned for good (23 alive across 12 kills). Real processes, real bridges;
 * the mark the bridge gives every agent (spawn-marks.ts) is what finds them. Linux: /proc.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BRIDGE_RUN_MARK, newBridgeRun, stopEarlierRuns } from '../../main/backends/process/spawn-marks.js';
import { isRunning } from '../fixtures/cli/processes.js';
import { eventually } from '../helpers/wait.js';
import { startTestBridge, tempDir, writeTestConfig, type TestBridge } from '../helpers/bridge.js';
import { nodeFixture } from './attack-agents.js';
import { rpc, startBridgeProcess, stopBridgeProcess, type BridgeProcess } from './kill-harness.js';

const pidsIn = (dir: string, prefix: string): number[] =>
  readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .map((f) => Number(readFileSync(path.join(dir, f), 'utf8')));

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe.skipIf(process.platform !== 'linux')('processes that leave the agent group', () => {
  it('are stopped with their task: a setsid child and a double-forked daemon', async () => {
    const dir = tempDir();
    const pidDir = path.join(dir, 'pids');
    mkdirSync(pidDir);
    const tb: TestBridge = await startTestBridge({
      dir,
      agents: { escaper: nodeFixture('escape-session.mjs', { env: { PID_DIR: pidDir } }) },
    });
    cleanup.push(() => tb.cleanup());
    const res = await tb.rpc('message/send', { agent: 'escaper', text: 'go' });
    expect(res.result.status.state).toBe('completed');
    const escaped = pidsIn(pidDir, 'escaped-');
    expect(escaped).toHaveLength(2);
    cleanup.push(async () => escaped.forEach((pid) => isRunning(pid) && process.kill(pid, 'SIGKILL')));
    await eventually(() => escaped.every((pid) => !isRunning(pid)));
  });

  it('a bridge restarted after kill -9 stops the agents the killed one left, and nothing else', async () => {
    const dir = tempDir();
    const pidDir = path.join(dir, 'pids');
    mkdirSync(pidDir);
    const { configPath, dataDir } = writeTestConfig(dir, {
      agents: { escaper: nodeFixture('escape-session.mjs', { env: { PID_DIR: pidDir, SLEEP: '1' } }) },
    });
    // A bystander: a process of the same user, started outside any bridge. It must survive.
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    cleanup.push(async () => void bystander.kill('SIGKILL'));
    let bridge: BridgeProcess | undefined = await startBridgeProcess(configPath, dataDir, dir);
    cleanup.push(async () => {
      if (bridge) await stopBridgeProcess(bridge);
    });
    const sent = await rpc(bridge, 'message/send', {
      agent: 'escaper',
      text: 'go',
      configuration: { blocking: false },
    });
    await eventually(() => pidsIn(pidDir, 'agent-').length === 1);
    const left = [...pidsIn(pidDir, 'agent-'), ...pidsIn(pidDir, 'escaped-')];
    expect(left).toHaveLength(3);
    cleanup.push(async () => left.forEach((pid) => isRunning(pid) && process.kill(pid, 'SIGKILL')));

    bridge.child.kill('SIGKILL');
    await bridge.exited;
    bridge = undefined;
    expect(left.every(isRunning)).toBe(true); // orphaned, as before the fix

    bridge = await startBridgeProcess(configPath, dataDir, dir);
    // The restart stops them before it serves: by the time it answers, they are gone.
    expect(left.filter(isRunning)).toEqual([]);
    expect(isRunning(bystander.pid!)).toBe(true);
    const task = (await rpc(bridge, 'tasks/get', { id: sent.result.id })).result;
    expect(task.status.state).toBe('failed');
    expect(task.metadata.retryable).toBe(true);
  }, 120_000);

  it('the start-up stop returns only once what it killed is gone: SIGKILL takes effect later', async () => {
    // A leftover of an earlier run that ignores SIGTERM and holds a large heap, so its exit after SIGKILL takes
    // a while: the bridge went on to serve while such a process was still running.
    const dataDir = tempDir();
    const daemon =
      'globalThis.heap = Buffer.alloc(256 << 20, 1); process.on("SIGTERM", () => {}); ' +
      'process.stdout.write("ready"); setInterval(() => {}, 1 << 30);';
    const leftover = spawn(process.execPath, ['-e', daemon], {
      env: { PATH: process.env.PATH, [BRIDGE_RUN_MARK]: newBridgeRun(dataDir) },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    cleanup.push(async () => void leftover.kill('SIGKILL'));
    await new Promise((resolve) => leftover.stdout!.once('data', resolve));
    expect(isRunning(leftover.pid!)).toBe(true);

    expect(await stopEarlierRuns(newBridgeRun(dataDir), 1000)).toBe(1);
    expect(isRunning(leftover.pid!)).toBe(false);
  }, 60_000);
});
