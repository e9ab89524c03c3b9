/**
 * Stopping, at start, the agent processes of tasks a killed bridge left running (SECURITY.md#agent-processes), by
 * what the store recorded for them: each agent's pid and start identity (process-start.ts) in the task's
 * `metadata.receipt` (`pid`, `pidStart`). A pid whose process has another start time now is another
 * program that reused the number: it is never signalled.
 *
 * This complements the environment marks (spawn-marks.ts), which find descendants on Linux but not a
 * child that cleared its environment, and nothing on Windows:
 * - Linux: the recorded process, its descendants (parent links in /proc) and its process group, each
 *   member checked by its own start time, get SIGTERM, then SIGKILL after the grace.
 * - Windows: `taskkill /PID n /T /F` (learn.microsoft.com/windows-server/administration/windows-commands/taskkill:
 *   /T the process and the child processes it started, /F forcefully); if taskkill fails, the process
 *   itself is terminated directly after its start time is checked again. For a WSL agent the pid is
 *   `wsl.exe`'s; the Linux side is stopped inside the distro (wsl-orphans.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Task } from '../../domain/task.js';
import { linuxProcessStart, windowsProcessStarts, type StartQueryOptions } from './process-start.js';
import { runTaskkill, taskkillCommand } from './process-tree.js';
import { stopMarked } from './spawn-marks.js';

export interface RecordedAgent {
  pid: number;
  /** The start identity recorded at spawn (process-start.ts). */
  start: string;
}

export interface StopRecordedOptions extends StartQueryOptions {
  /** Time between SIGTERM and SIGKILL on Linux (default 2000 ms). */
  graceMs?: number;
  /** The taskkill program (default `taskkill`, found on PATH). */
  taskkill?: string;
}

export interface StopRecordedResult {
  /** Recorded pids whose process was still the recorded one, and was stopped. */
  stopped: number[];
  /** Recorded pids that are running as another process now (a reused pid): left alone. */
  spared: number[];
}

/** The recorded agents of `tasks` (each pid once): those whose receipt holds a pid and its start. */
export function recordedAgentsOf(tasks: readonly Task[]): RecordedAgent[] {
  const byPid = new Map<number, RecordedAgent>();
  for (const task of tasks) {
    const receipt = task.metadata.receipt;
    const pid = receipt?.pid;
    const start = receipt?.pidStart;
    if (typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0 && typeof start === 'string') {
      byPid.set(pid, { pid, start });
    }
  }
  return [...byPid.values()];
}

/** Stops every recorded agent that is still the recorded process. Never throws. */
export async function stopRecordedAgents(
  recorded: readonly RecordedAgent[],
  options: StopRecordedOptions = {},
): Promise<StopRecordedResult> {
  const platform = options.platform ?? process.platform;
  if (recorded.length === 0 || (platform !== 'linux' && platform !== 'win32')) return { stopped: [], spared: [] };
  return platform === 'linux' ? stopOnLinux(recorded, options.graceMs ?? 2000) : stopOnWindows(recorded, options);
}

async function stopOnLinux(recorded: readonly RecordedAgent[], graceMs: number): Promise<StopRecordedResult> {
  const result: StopRecordedResult = { stopped: [], spared: [] };
  const targets = new Map<number, string>(); // pid → start, for the recorded process and its tree
  for (const { pid, start } of recorded) {
    const now = linuxProcessStart(pid);
    if (now === undefined) continue; // gone
    if (now !== start) {
      result.spared.push(pid);
      continue;
    }
    result.stopped.push(pid);
    for (const member of linuxTree(pid)) {
      const memberStart = linuxProcessStart(member);
      if (memberStart !== undefined) targets.set(member, memberStart);
    }
  }
  const stillThere = (): number[] =>
    [...targets].filter(([pid, start]) => linuxProcessStart(pid) === start).map(([pid]) => pid);
  await stopMarked(stillThere, graceMs);
  return result;
}

/** `root`, its descendants by parent link, and the members of the group it leads (proc(5) stat fields). */
function linuxTree(root: number): number[] {
  const parents = new Map<number, number[]>();
  const group: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [root];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), pid]);
      if (Number(fields[2]) === root) group.push(pid);
    } catch {
      // exited while we looked
    }
  }
  const tree = new Set<number>([root, ...group]);
  const queue = [root];
  while (queue.length > 0) {
    for (const child of parents.get(queue.shift()!) ?? []) {
      if (!tree.has(child)) {
        tree.add(child);
        queue.push(child);
      }
    }
  }
  tree.delete(process.pid);
  return [...tree];
}

async function stopOnWindows(
  recorded: readonly RecordedAgent[],
  options: StopRecordedOptions,
): Promise<StopRecordedResult> {
  const result: StopRecordedResult = { stopped: [], spared: [] };
  const now = await windowsProcessStarts(
    recorded.map((r) => r.pid),
    options,
  );
  const ours: number[] = [];
  for (const { pid, start } of recorded) {
    const current = now.get(pid);
    if (current === undefined) continue; // gone
    if (current === start) ours.push(pid);
    else result.spared.push(pid);
  }
  const failed: number[] = [];
  for (const pid of ours) {
    result.stopped.push(pid);
    if (!(await taskkill(pid, options))) failed.push(pid);
  }
  if (failed.length > 0) {
    // taskkill missing or refused: terminate the process itself, if it is still the recorded one.
    const again = await windowsProcessStarts(failed, options);
    for (const pid of failed) {
      if (again.get(pid) === recorded.find((r) => r.pid === pid)?.start) signal(pid, 'SIGKILL');
    }
  }
  return result;
}

/** True when taskkill succeeded or found no such process (exit 128: it is gone already). */
async function taskkill(pid: number, options: StopRecordedOptions): Promise<boolean> {
  const { program, args } = taskkillCommand(pid);
  const { code, failure } = await runTaskkill(
    { program: options.taskkill ?? program, args },
    options.timeoutMs ?? 10_000,
  );
  return failure === undefined || code === 128;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}
