/**
 * Signalling a whole process tree. On POSIX an agent is spawned as the leader of its own process group
 * (`detached: true`), so one signal to `-pid` reaches every descendant that did not start a group of its
 * own. On Windows there are no groups; `taskkill /T` walks the parent links instead.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** How a process tree is stopped: by process group (POSIX), or by a taskkill-style program (Windows). */
export type TreeKill =
  { kind: 'group' } | { kind: 'taskkill'; command: (pid: number) => { program: string; args: string[] } };

/** The argv that kills a Windows process and all of its descendants, forcefully. */
export function taskkillCommand(pid: number): { program: string; args: string[] } {
  return { program: 'taskkill', args: ['/PID', String(pid), '/T', '/F'] };
}

/** How a taskkill run went: its exit code (null when it did not exit), and why it failed unless it exited 0. */
export interface TaskkillResult {
  code: number | null;
  failure: string | undefined;
}

/**
 * Runs taskkill (or a stand-in) once. taskkill exits 0 on success and non-zero with an `ERROR: ...` line
 * otherwise (Microsoft Learn, "taskkill"); a hung taskkill is killed after `ms` and counts as failed.
 * The one runner for both the live agents' trees and the recorded agents of an earlier bridge.
 */
export function runTaskkill(command: { program: string; args: string[] }, ms: number): Promise<TaskkillResult> {
  let killer: ReturnType<typeof spawn>;
  try {
    killer = spawn(command.program, command.args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
      shell: false,
    });
  } catch (err) {
    // Thrown, not emitted, for a spawn failure other than ENOENT, EACCES, EAGAIN, EMFILE and ENFILE.
    return Promise.resolve({ code: null, failure: (err as Error).message });
  }
  const output: Buffer[] = [];
  killer.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
  killer.stderr!.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      killer.kill();
      resolve({ code: null, failure: `no answer within ${ms} ms` });
    }, ms);
    killer.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, failure: err.message });
    });
    killer.once('close', (code) => {
      clearTimeout(timer);
      const said = Buffer.concat(output).toString('utf8').trim().split(/\r?\n/).slice(-2).join(' ');
      resolve({ code, failure: code === 0 ? undefined : `exit ${code ?? 'signal'}${said ? `: ${said}` : ''}` });
    });
  });
}

/** Sends `signal` to the process group led by `pid`. Returns false when the group no longer exists. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while the group led by `pid` has a member that is still running. Zombies do not count: in a
 * container whose init does not reap orphans, a killed grandchild stays a zombie forever and would
 * otherwise keep the group "alive" until every grace period runs out.
 */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return process.platform === 'linux' ? runningMemberOnLinux(pid) : true;
}

function runningMemberOnLinux(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // Fields after the parenthesised command name: state ppid pgrp ... (proc(5)); the name may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    if (Number(fields[2]) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}
