import { readFileSync } from 'node:fs';

/**
 * Whether a process exists (EPERM: it does, owned by someone else). A zombie does not count: a bridge
 * started by `up` is orphaned, and on Linux its exit is reaped only when init gets to it.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // /proc/<pid>/stat: "pid (comm) S ..." — comm may hold spaces and parentheses, so read after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
