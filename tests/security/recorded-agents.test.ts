/**
 * A restarted bridge stops the agents of tasks the killed one left running by the pid
 * and start time recorded at spawn (recorded-agents.ts), and never a process that only has the same pid
 * now. Real processes throughout.
 *
 * - "on this platform": Linux (/proc) or Windows (PowerShell + taskkill), whichever runs the test.
 * - "the Windows way": on Windows the real PowerShell and taskkill; elsewhere the stand-ins in
 *   tests/fixtures/windows-tools, built from their documented behaviour (see their headers), driving
 *   real Linux processes. A reused pid is simulated as the issue says: a live unrelated process recorded
 *   with a start time that is not its own.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  processStartOf,
  windowsProcessStarts,
  type StartQueryOptions,
} from '../../main/backends/process/process-start.js';
import {
  recordedAgentsOf,
  stopRecordedAgents,
  type StopRecordedOptions,
} from '../../main/backends/process/recorded-agents.js';
import type { Task } from '../../main/domain/task.js';
import { isRunning } from '../fixtures/cli/processes.js';
import { TEST_TIMEOUT_MS } from '../helpers/timeouts.js';
import { eventually } from '../helpers/wait.js';
import { REPO_ROOT, tempDir } from '../helpers/bridge.js';
import { Harness, makeTurn, RecordingReporter } from '../fixtures/acp/harness.js';

const ON_WINDOWS = process.platform === 'win32';
/**
 * Windows 10/11 always have Windows PowerShell; a Windows node under Wine may not (it ships taskkill, not
 * PowerShell): there the Windows tests are skipped rather than failed for the missing tool.
 */
const NO_POWERSHELL =
  ON_WINDOWS && spawnSync('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', 'exit 0']).status !== 0;
const NATIVE = (process.platform === 'linux' || ON_WINDOWS) && !NO_POWERSHELL;

const started: ChildProcess[] = [];
const extraPids: number[] = [];
const acp = new Harness();
afterEach(async () => {
  await acp.cleanup();
  for (const p of started.splice(0)) p.kill('SIGKILL');
  for (const pid of extraPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/** A process that started a child of its own; resolves with both pids. */
async function parentWithChild(): Promise<{ pid: number; childPid: number }> {
  const script =
    "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });" +
    'console.log(c.pid); setInterval(() => {}, 1 << 30);';
  const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(parent);
  const childPid = await new Promise<number>((resolve) =>
    parent.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
  );
  extraPids.push(childPid);
  return { pid: parent.pid!, childPid };
}

function bystander(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  started.push(child);
  return child.pid!;
}

/** Another start than `start`: the same format, the number after the last colon moved by one. */
const otherStart = (start: string): string => start.replace(/\d+$/, (n) => String(BigInt(n) + 1n));

describe.skipIf(!NATIVE)('recorded agents on this platform', () => {
  it('records a start that stays the same at every look', async () => {
    const a = bystander();
    const first = await processStartOf(a);
    expect(first).toMatch(ON_WINDOWS ? /^win32:\d+$/ : /^linux:[0-9a-f-]+:\d+$/);
    expect(await processStartOf(a)).toBe(first);
    expect(await processStartOf(2 ** 22 + 12345)).toBeUndefined(); // above pid_max: never a process
  });

  it('an ACP agent receipt records its pid with its start (a CLI agent: recorded-orphans.test.ts)', async () => {
    const report = new RecordingReporter();
    await acp.backend().run(makeTurn('echo hi'), report);
    const pid = report.facts.pid as number;
    expect(report.facts.pidStart).toBe(await processStartOf(pid));
    expect(report.facts.pidStart).toEqual(expect.any(String));
  });

  it('stops a recorded agent that is still the recorded process, with the child it started', async () => {
    const { pid, childPid } = await parentWithChild();
    const start = (await processStartOf(pid))!;
    const result = await stopRecordedAgents([{ pid, start }], { graceMs: 500 });
    expect(result).toEqual({ stopped: [pid], spared: [] });
    await eventually(() => !isRunning(pid) && !isRunning(childPid), 'the agent and its child to end');
  });

  it('never touches a reused pid: a live process recorded with another start time survives', async () => {
    const reused = bystander();
    const wrong = otherStart((await processStartOf(reused))!);
    const result = await stopRecordedAgents([{ pid: reused, start: wrong }], { graceMs: 200 });
    expect(result).toEqual({ stopped: [], spared: [reused] });
    expect(isRunning(reused)).toBe(true);
    expect(await processStartOf(reused)).not.toBe(wrong);
  });

  it('does nothing for a recorded pid that no longer runs', async () => {
    const gone = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const start = await new Promise<string | undefined>((resolve) =>
      gone.once('spawn', () => resolve(processStartOf(gone.pid))),
    );
    await new Promise((resolve) => gone.once('exit', resolve));
    const result = await stopRecordedAgents([{ pid: gone.pid!, start: start ?? 'linux:x:1' }]);
    // Windows may hand the pid to a new process at once: that one is spared, never stopped.
    expect(result.stopped).toEqual([]);
  });
});

describe('recordedAgentsOf', () => {
  const task = (receipt: Record<string, unknown> | undefined): Task =>
    ({ metadata: receipt ? { receipt } : {} }) as unknown as Task;
  it('takes each pid once, and only with its recorded start', () => {
    expect(
      recordedAgentsOf([
        task({ pid: 10, pidStart: 'linux:b:5' }),
        task({ pid: 10, pidStart: 'linux:b:5' }), // an ACP process serves several tasks
        task({ pid: 11 }), // recorded before start times were: never stopped by pid alone
        task({ pid: '12', pidStart: 'linux:b:6' }),
        task({ pid: -1, pidStart: 'linux:b:6' }),
        task(undefined),
      ]),
    ).toEqual([{ pid: 10, start: 'linux:b:5' }]);
  });
});

/** Real tools on Windows; the stand-ins, copied to a fresh dir (their call log lives there), elsewhere. */
function windowsTools(): StopRecordedOptions & { log?: string } {
  if (ON_WINDOWS) return { platform: 'win32' };
  const dir = tempDir();
  for (const tool of ['powershell.exe', 'taskkill']) {
    copyFileSync(path.join(REPO_ROOT, 'tests', 'fixtures', 'windows-tools', tool), path.join(dir, tool));
  }
  return {
    platform: 'win32',
    powershell: path.join(dir, 'powershell.exe'),
    taskkill: path.join(dir, 'taskkill'),
    log: path.join(dir, 'taskkill.log'),
    // The stand-ins answer in milliseconds when idle; on a loaded machine they get the test's whole time.
    timeoutMs: TEST_TIMEOUT_MS,
  };
}

const taskkillCalls = (tools: { log?: string }): string[] =>
  tools.log && existsSync(tools.log) ? readFileSync(tools.log, 'utf8').trim().split('\n') : [];

describe.skipIf(!NATIVE)('recorded agents, the Windows way', () => {
  let tools: ReturnType<typeof windowsTools>;
  beforeAll(() => {
    tools = windowsTools();
  });

  it('reads creation times as FILETIMEs, one query for many pids, skipping pids with no process', async () => {
    const a = bystander();
    const b = bystander();
    const starts = await windowsProcessStarts([a, b, 2 ** 22 + 12345], tools);
    expect([...starts.keys()].sort()).toEqual([a, b].sort());
    expect(starts.get(a)).toMatch(/^win32:\d{17,}$/);
    expect(await processStartOf(a, tools)).toBe(starts.get(a));
  });

  it('stops the recorded agent and its child with taskkill /T /F, and spares a reused pid', async () => {
    const { pid, childPid } = await parentWithChild();
    const reused = bystander();
    const start = (await processStartOf(pid, tools))!;
    const wrong = otherStart((await processStartOf(reused, tools))!);
    const result = await stopRecordedAgents(
      [
        { pid, start },
        { pid: reused, start: wrong },
      ],
      tools,
    );
    expect(result).toEqual({ stopped: [pid], spared: [reused] });
    await eventually(() => !isRunning(pid) && !isRunning(childPid), 'the agent and its child to end');
    expect(isRunning(reused)).toBe(true);
    if (!ON_WINDOWS) expect(taskkillCalls(tools)).toEqual([`/PID ${pid} /T /F`]);
  });

  it('terminates the process itself when taskkill cannot run, after checking its start again', async () => {
    const target = bystander();
    const start = (await processStartOf(target, tools))!;
    const missing = path.join(tempDir(), 'no-taskkill-here');
    const result = await stopRecordedAgents([{ pid: target, start }], { ...tools, taskkill: missing });
    expect(result.stopped).toEqual([target]);
    await eventually(() => !isRunning(target), 'the agent to end');
  });

  it.skipIf(ON_WINDOWS)('keeps only whole lines of a query cut short by its bound', async () => {
    const a = bystander();
    const b = bystander();
    const full = await windowsProcessStarts([a], tools);
    // The bound runs on fake timers and ends only once the stand-in has written a line and a half.
    const written = path.join(tempDir(), 'half-line-written');
    process.env.STANDIN_CUT = written;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const cutting = windowsProcessStarts([a, b], { ...tools, timeoutMs: 5_000 });
      await eventually(() => existsSync(written), 'the stand-in to write half a line');
      vi.advanceTimersByTime(5_000);
      expect(await cutting).toEqual(full);
    } finally {
      vi.useRealTimers();
      delete process.env.STANDIN_CUT;
    }
  });

  it.skipIf(ON_WINDOWS)('gives up on a query that hangs, within its bound, and stops nothing', async () => {
    const target = bystander();
    const start = (await processStartOf(target, tools))!;
    process.env.STANDIN_HANG = '1';
    try {
      const options: StartQueryOptions & StopRecordedOptions = { ...tools, timeoutMs: 300 };
      expect(await stopRecordedAgents([{ pid: target, start }], options)).toEqual({ stopped: [], spared: [] });
    } finally {
      delete process.env.STANDIN_HANG;
    }
    expect(isRunning(target)).toBe(true);
    expect(taskkillCalls(tools)).not.toContain(`/PID ${target} /T /F`);
  });
});
