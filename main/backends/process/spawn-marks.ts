/**
 * Finding every process an agent started, even the ones that left its process group (SECURITY.md#agent-processes):
 * a child that runs `setsid`, or a daemon that double-forks and is reparented to init, is no longer in
 * the group `stopProcessTree` signals and used to outlive its task. Every child the bridge spawns
 * carries two marks in its environment, which its descendants inherit whatever group or session they
 * move to:
 *
 * - `CONTACTOR_SPAWN=<random>`: this one child and its descendants; stopped with the child.
 * - `CONTACTOR_BRIDGE_RUN=<data-dir key>:<bridge run>`: every agent of one bridge run; on start, a
 *   bridge stops what an earlier run on the same data dir left behind (a kill -9 orphans its agents).
 *
 * Linux only: the marks are read from /proc/<pid>/environ (the environment a process was started with;
 * only the user's own processes are readable). A pid that was reused by an unrelated program never
 * carries the mark, so it is never signalled. What escapes: a process that execs itself with a cleared
 * environment, or rewrites its environment block (after a crash, recorded-agents.ts still finds the agent
 * itself by its pid and start time). Elsewhere (macOS, Windows) only the process group (POSIX) or
 * `taskkill /T` (Windows: the parent links that still exist) are covered.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { linuxProcessStart } from './process-start.js';

export const SPAWN_MARK = 'CONTACTOR_SPAWN';
export const BRIDGE_RUN_MARK = 'CONTACTOR_BRIDGE_RUN';

const POLL_MS = 25;

const spawnMarks = new WeakMap<object, string>();

export function newSpawnMark(): string {
  return randomBytes(12).toString('base64url');
}

/** Remembers the mark a child was spawned with (see `spawnMarkOf`). */
export function rememberSpawnMark(child: object, mark: string): void {
  spawnMarks.set(child, mark);
}

export function spawnMarkOf(child: object): string | undefined {
  return spawnMarks.get(child);
}

/** The key of a data dir in `CONTACTOR_BRIDGE_RUN`: a hash, so no path shows in `ps e`. */
export function dataDirKey(dataDir: string): string {
  return createHash('sha256').update(dataDir).digest('base64url').slice(0, 16);
}

export function newBridgeRun(dataDir: string): string {
  return `${dataDirKey(dataDir)}:${randomBytes(9).toString('base64url')}`;
}

/** Running (not zombie) processes whose environment holds a variable that `match` accepts. */
export function markedProcesses(match: (name: string, value: string) => boolean): number[] {
  if (process.platform !== 'linux') return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (state === 'Z' || state === 'X') continue;
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
      if (environ.split('\0').some((kv) => marked(kv, match))) found.push(Number(entry));
    } catch {
      // exited while we looked, or another user's process
    }
  }
  return found;
}

function marked(kv: string, match: (name: string, value: string) => boolean): boolean {
  const eq = kv.indexOf('=');
  if (eq <= 0 || !kv.startsWith('CONTACTOR_')) return false;
  return match(kv.slice(0, eq), kv.slice(eq + 1));
}

/**
 * How long, after SIGKILL, the stop waits for its processes to be gone. SIGKILL cannot be caught, but it takes
 * effect only when the kernel next runs the process, and its exit (unmapping a large heap) takes time too: on
 * a loaded machine a killed agent was still running when the restarted bridge already served. Only a process
 * stuck in uninterruptible I/O outlives this bound.
 */
const KILL_WAIT_MS = 10_000;

/**
 * SIGTERM to every process `find` returns, then SIGKILL to what is still running after `graceMs`, and to
 * anything `find` still returns until it returns nothing (a descendant forked while the kill went out).
 * Resolves once every signalled process has exited (or after `KILL_WAIT_MS`), so a caller that goes on to
 * serve has no agent of the stopped run left running. Returns how many processes it signalled. Never throws.
 */
export async function stopMarked(find: () => number[], graceMs: number): Promise<number> {
  const first = find();
  if (first.length === 0) return 0;
  // Each signalled pid with its start identity: a pid reused by another program after the exit never counts.
  const signalled = new Map<number, string>();
  const send = (pids: readonly number[], sig: NodeJS.Signals): void => {
    for (const pid of pids) {
      const start = signalled.get(pid) ?? linuxProcessStart(pid);
      if (start === undefined) continue; // gone already
      signalled.set(pid, start);
      signal(pid, sig);
    }
  };
  // Marks are read from the environment, which a process in the middle of its exit no longer shows.
  const stillRunning = (): number[] => [
    ...new Set([
      ...find(),
      ...[...signalled].filter(([pid, start]) => linuxProcessStart(pid) === start).map(([pid]) => pid),
    ]),
  ];
  send(first, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  let left = find();
  while (left.length > 0 && Date.now() < deadline) {
    await pause();
    left = find();
  }
  for (const killDeadline = Date.now() + KILL_WAIT_MS; ;) {
    left = stillRunning();
    if (left.length === 0 || Date.now() >= killDeadline) break;
    send(left, 'SIGKILL');
    await pause();
  }
  return signalled.size;
}

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, POLL_MS));
}

/** Every process started under one spawn mark (the child and all its descendants). */
export function stopSpawned(mark: string, graceMs: number): Promise<number> {
  return stopMarked(() => markedProcesses((name, value) => name === SPAWN_MARK && value === mark), graceMs);
}

/**
 * What earlier runs of a bridge on this data dir left running: processes marked with the same data
 * dir key and another run. The instance lock guarantees no other live bridge uses this data dir.
 */
export function stopEarlierRuns(currentRun: string, graceMs: number): Promise<number> {
  const key = `${currentRun.split(':')[0]}:`;
  return stopMarked(
    () => markedProcesses((name, value) => name === BRIDGE_RUN_MARK && value.startsWith(key) && value !== currentRun),
    graceMs,
  );
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}
