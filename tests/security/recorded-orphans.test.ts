/**
 * End to end: an agent that clears its environment (`exec env -i ...`) carries no mark
 * (spawn-marks.ts), so after a kill -9 of the bridge only the pid and start time its task recorded can
 * find it. The restarted bridge stops it by those two; a task whose record names a live unrelated
 * process (its pid rewritten in the database, as a reused pid would look) leaves that process alone.
 * Real bridge processes, real SQLite file. Linux: the record is read from /proc.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isRunning } from '../fixtures/cli/processes.js';
import { eventually } from '../helpers/wait.js';
import { tempDir, writeTestConfig } from '../helpers/bridge.js';
import { rpc, startBridgeProcess, stopBridgeProcess, type BridgeProcess } from './kill-harness.js';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** Writes its pid, then becomes `sleep` with an empty environment: the same process, no marks left. */
const envClearing = (pidDir: string): Record<string, unknown> => ({
  kind: 'subprocess_cli',
  command: ['/bin/sh', '-c', `echo $$ > "${pidDir}/$$"; exec env -i sleep 600`],
  timeout_s: 600,
  append_decision_contract: false,
});

describe.skipIf(process.platform !== 'linux')('agents recorded by pid and start time', () => {
  it('a restart after kill -9 stops an agent without marks, and spares a pid that is another process now', async () => {
    const dir = tempDir();
    const pidDir = path.join(dir, 'pids');
    mkdirSync(pidDir);
    const { configPath, dataDir } = writeTestConfig(dir, {
      agents: { a1: envClearing(pidDir), a2: envClearing(pidDir) },
    });
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
    cleanup.push(async () => void bystander.kill('SIGKILL'));
    let bridge: BridgeProcess | undefined = await startBridgeProcess(configPath, dataDir, dir);
    cleanup.push(async () => {
      if (bridge) await stopBridgeProcess(bridge);
    });

    const ids: string[] = [];
    for (const agent of ['a1', 'a2']) {
      const sent = await rpc(bridge, 'message/send', { agent, text: 'go', configuration: { blocking: false } });
      ids.push(sent.result.id);
    }
    const receipts: Record<string, unknown>[] = [];
    await eventually(() => readdirSync(pidDir).length === 2);
    for (const id of ids) {
      for (let i = 0; ; i++) {
        const task = (await rpc(bridge, 'tasks/get', { id })).result;
        if (task.metadata.receipt?.pidStart) {
          receipts.push(task.metadata.receipt);
          break;
        }
        if (i > 400) throw new Error(`no start time recorded for ${id}: ${JSON.stringify(task.metadata)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    const [first, second] = receipts.map((r) => r.pid as number) as [number, number];
    cleanup.push(async () => [first, second].forEach((pid) => isRunning(pid) && process.kill(pid, 'SIGKILL')));
    expect(readFileSync(`/proc/${first}/environ`, 'utf8')).not.toContain('CONTACTOR_');
    expect(receipts[0]!.pidStart).toMatch(/^linux:[0-9a-f-]+:\d+$/);

    bridge.child.kill('SIGKILL');
    await bridge.exited;
    bridge = undefined;
    expect(isRunning(first) && isRunning(second)).toBe(true);

    // The second task's record now names the bystander's pid with the agent's start time: a reused pid.
    const db = new Database(path.join(dataDir, 'contactor.db'));
    db.prepare(`UPDATE tasks SET task_json = json_set(task_json, '$.metadata.receipt.pid', ?) WHERE id = ?`).run(
      bystander.pid,
      ids[1],
    );
    db.close();

    bridge = await startBridgeProcess(configPath, dataDir, dir);
    // Stopped before the restarted bridge serves.
    expect(isRunning(first)).toBe(false);
    expect(isRunning(bystander.pid!)).toBe(true);
    // Nothing names the second agent any more (no mark, no record of its pid): it is still running.
    expect(isRunning(second)).toBe(true);
    const task = (await rpc(bridge, 'tasks/get', { id: ids[0] })).result;
    expect(task.status.state).toBe('failed');
  }, 120_000);
});
